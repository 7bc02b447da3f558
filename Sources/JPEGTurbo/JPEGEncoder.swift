import ByteStreams
internal import CJPEG
internal import CJPEGBoundary

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Settings for a baseline JPEG.
public struct JPEGEncoding: Sendable, Equatable {
    public var quality: Int
    /// 4:4:4 when true, 4:2:0 otherwise.
    public var fullChroma: Bool
    /// Optimised Huffman tables need libjpeg's whole-image coefficient buffer
    /// (two passes): only turn this on when the budget allows it.
    public var optimizeCoding: Bool
    /// Progressive scans; darkroom's renders are baseline, tests use this to make inputs.
    public var progressive: Bool
    /// What the rows hold and how they are stored. darkroom's renders are RGB; tests use CMYK
    /// and YCCK to make print-style inputs.
    public var color: Color = .rgb

    public enum Color: Sendable, Equatable {
        /// 3 bytes a pixel, stored as YCbCr.
        case rgb
        /// 4 bytes a pixel (C, M, Y, K as given: libjpeg inverts nothing), stored as CMYK with an
        /// Adobe APP14 marker (transform 0).
        case cmyk
        /// 4 bytes a pixel as for `.cmyk`, stored as YCCK (transform 2).
        case ycck
        /// 1 byte a pixel, stored as greyscale (a gain map's luminance).
        case grey

        public var bytesPerPixel: Int {
            switch self {
            case .rgb: 3
            case .cmyk, .ycck: 4
            case .grey: 1
            }
        }
    }

    /// darkroom's default: chroma follows quality (4:4:4 at 90 and above).
    public init(quality: Int, fullChroma: Bool? = nil, optimizeCoding: Bool = false, progressive: Bool = false) {
        self.quality = quality
        self.fullChroma = fullChroma ?? (quality >= 90)
        self.optimizeCoding = optimizeCoding
        self.progressive = progressive
    }
}

/// Owns one libjpeg compressor and hands its bytes to a sink, a buffer at a time. The sink
/// decides when the object becomes visible (see `ObjectUpload`); the encoder only writes.
public final class JPEGEncoder {
    /// The object being written, as its sink names it: errors say this.
    public let objectName: String
    /// The buffer libjpeg writes through before handing bytes to the sink: one allocation,
    /// counted in render budgets.
    public static let destinationBufferBytes = 16 << 10
    private let handle: UnsafeMutablePointer<dr_jpeg_encoder>
    /// Reached by the write callback through the handle: lives exactly as long as the handle.
    private let stream: SinkContext
    private var width = 0
    private var bytesPerPixel = 3
    private var rowsWritten = 0
    private var height = 0
    private var state: State = .opened

    private enum State { case opened, started, finished }

    public init(sink: any ByteSink) throws {
        let name = sink.objectName
        guard let handle = dr_encoder_create() else {
            throw JPEGError(code: .outOfMemory, message: "could not allocate a JPEG encoder", object: name)
        }
        let context = SinkContext(sink)
        self.handle = handle
        objectName = name
        stream = context
        if dr_encoder_open(handle, writeToSink, context.pointer, Self.destinationBufferBytes) != DR_JPEG_OK {
            // Every stored property is set, so deinit runs and destroys the handle.
            throw JPEGError(code: .outOfMemory, message: boundaryMessage(&handle.pointee.error), object: name)
        }
    }

    deinit {
        dr_encoder_destroy(handle)
    }

    public func start(width: Int, height: Int, encoding: JPEGEncoding) throws {
        guard state == .opened else { throw misuse("start called twice") }
        guard (1...65_500).contains(width), (1...65_500).contains(height) else {
            throw JPEGError(
                code: .unsupported, message: "\(width)×\(height) is outside JPEG's 65500-pixel limit",
                object: objectName)
        }
        try check(
            dr_encoder_start(
                handle, JDIMENSION(width), JDIMENSION(height),
                Int32(min(max(encoding.quality, 1), 100)),
                encoding.fullChroma ? 1 : 0, encoding.optimizeCoding ? 1 : 0,
                encoding.progressive ? 1 : 0,
                Self.boundaryColor(encoding.color)))
        self.width = width
        bytesPerPixel = encoding.color.bytesPerPixel
        self.height = height
        state = .started
    }

    private static func boundaryColor(_ color: JPEGEncoding.Color) -> Int32 {
        switch color {
        case .rgb: DR_ENCODE_RGB
        case .cmyk: DR_ENCODE_CMYK
        case .ycck: DR_ENCODE_YCCK
        case .grey: DR_ENCODE_GREY
        }
    }

    /// Writes an APPn marker (e.g. APP1 for EXIF); call after `start`, before the first row.
    public func writeMarker(app index: Int, payload: [UInt8]) throws {
        guard state == .started, rowsWritten == 0 else { throw misuse("markers go before the first row") }
        guard payload.count <= 65_533 else {
            throw misuse("APP\(index) payload of \(payload.count) bytes exceeds 65533")
        }
        try payload.withUnsafeBufferPointer { bytes in
            try check(dr_encoder_write_marker(handle, JPEG_APP0 + Int32(index), bytes.baseAddress, UInt32(bytes.count)))
        }
    }

    public func writeICCProfile(_ profile: [UInt8]) throws {
        guard state == .started, rowsWritten == 0 else { throw misuse("the ICC profile goes before the first row") }
        try profile.withUnsafeBufferPointer { bytes in
            try check(dr_encoder_write_icc_profile(handle, bytes.baseAddress, UInt32(bytes.count)))
        }
    }

    /// Writes `rowCount` rows of `width * 3` bytes (RGB; `width * 4` for CMYK, `width` for grey), `rowStride` bytes apart.
    public func writeRows(from buffer: UnsafeRawBufferPointer, rowStride: Int, rowCount: Int) throws {
        guard state == .started else { throw misuse("writeRows before start or after finish") }
        guard rowCount > 0 else { return }
        guard rowsWritten + rowCount <= height else { throw misuse("more rows than the image height") }
        let rowBytes = width * bytesPerPixel
        precondition(rowStride >= rowBytes && buffer.count >= rowStride * (rowCount - 1) + rowBytes)
        guard let base = buffer.baseAddress else { return }
        let mutableBase = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: JSAMPLE.self))
        try withUnsafeTemporaryAllocation(of: JSAMPROW?.self, capacity: rowCount) { rows in
            for index in 0..<rowCount { rows[index] = mutableBase + index * rowStride }
            var wrote: JDIMENSION = 0
            try check(dr_encoder_write(handle, rows.baseAddress, JDIMENSION(rowCount), &wrote))
        }
        rowsWritten += rowCount
    }

    /// Completes the JPEG: its last bytes are in the sink when this returns (making them
    /// durable and visible is the sink's `commit`).
    public func finish() throws {
        guard state == .started, rowsWritten == height else {
            throw misuse("finish after \(rowsWritten) of \(height) rows")
        }
        try check(dr_encoder_finish(handle))
        state = .finished
    }

    private func check(_ status: Int32) throws {
        if status != DR_JPEG_OK {
            throw JPEGError(
                boundary: &handle.pointee.error, object: objectName, streamFailure: stream.failure, isDecoder: false)
        }
    }

    private func misuse(_ message: String) -> JPEGError {
        JPEGError(code: .misuse, message: message, object: objectName)
    }
}
