import ByteStreams
internal import CJPEG
internal import CJPEGBoundary

/// Owns one libjpeg decompressor and the source it reads. Rows come out top to bottom,
/// as 8-bit RGB (greyscale is expanded), a few at a time: nothing here holds the image.
public final class JPEGDecoder {
    /// The object being read, as its source names it: errors say this.
    public let objectName: String
    public let header: JPEGHeader
    /// Ordinary progressive files have about ten scans; a thousand is never legitimate.
    public static let defaultMaxScans = 1000
    /// The buffer libjpeg reads the source through: one allocation, counted in render budgets.
    public static let sourceBufferBytes = 16 << 10
    /// Bytes before the first scan (markers, EXIF, ICC, XMP: libjpeg keeps the APP1 and APP2
    /// segments in memory). Ordinary photos need tens of kilobytes; this is the bound on what
    /// a header can make the decoder hold, outside any render budget.
    public static let maxHeaderBytes = 16 << 20
    private let handle: UnsafeMutablePointer<dr_jpeg_decoder>
    /// Reached by the read callback through the handle: lives exactly as long as the handle.
    private let stream: SourceContext
    private var state: State = .headerRead
    /// What was irregular but harmless about the file: what the header had (ICC chunks that do
    /// not fit together) from the start; then, set by `finish`, which fails instead when the file
    /// is damaged, bytes skipped between markers, no EOI marker, bytes after it.
    public private(set) var warnings: [JPEGWarning] = []
    private let headerWarnings: [JPEGWarning]

    private enum State { case headerRead, decoding, finished }

    /// Reads the header from `source`. Damaged data is an error, never grey or smeared pixels:
    /// a cut or corrupt scan fails the call that meets it, a file that stops between scans fails
    /// `start` or `finish`. Files with more than `maxScans` scans are refused (0: no limit). The
    /// source is read front to back, once (to its end, by `finish`), and only while one of this
    /// decoder's methods runs.
    public init(source: any ByteSource, maxScans: Int = JPEGDecoder.defaultMaxScans) throws {
        let name = source.objectName
        guard let handle = dr_decoder_create(Int32(clamping: maxScans)) else {
            throw JPEGError(code: .outOfMemory, message: "could not allocate a JPEG decoder", object: name)
        }
        let context = SourceContext(source)
        context.limit = Self.maxHeaderBytes
        self.handle = handle
        objectName = name
        stream = context
        // `header` is not set yet, so a throw here skips deinit: destroy explicitly.
        if dr_decoder_open(handle, readFromSource, context.pointer, Self.sourceBufferBytes) != DR_JPEG_OK {
            let error =
                context.readPastLimit
                ? JPEGError(
                    code: .corrupt,
                    message: "the markers before the first scan take more than \(Self.maxHeaderBytes) bytes",
                    object: name, byteOffset: Self.maxHeaderBytes)
                : JPEGError(
                    boundary: &handle.pointee.error, object: name, streamFailure: context.failure, isDecoder: true,
                    inputRanDryAt: Self.ranDryAt(handle), inHeader: true)
            dr_decoder_destroy(handle)
            throw error
        }
        context.limit = nil
        do {
            (header, headerWarnings) = try Self.readHeader(handle, stream: context, name: name)
            warnings = headerWarnings
        } catch {
            dr_decoder_destroy(handle)
            throw error
        }
    }

    deinit {
        dr_decoder_destroy(handle)
    }

    /// What the rows hold: 3 bytes a pixel of RGB (greyscale, YCbCr and RGB files), or 4 of CMYK
    /// as stored (CMYK files, and YCCK ones, which libjpeg turns into CMYK; Adobe's files store
    /// them inverted: see `JPEGHeader.adobeTransform`). Converting CMYK to RGB needs a colour
    /// transform, which is the caller's.
    public enum Output: Sendable, Equatable {
        case rgb, cmyk

        public var bytesPerPixel: Int { self == .rgb ? 3 : 4 }
    }

    /// The output a file of this colour space decodes to; nil for one darkroom does not read.
    public static func output(for colorSpace: JPEGHeader.ColorSpace) -> Output? {
        switch colorSpace {
        case .grayscale, .ycbcr, .rgb: .rgb
        case .cmyk, .ycck: .cmyk
        case .unknown: nil
        }
    }

    public private(set) var output: Output = .rgb

    /// Output size after DCT scaling by `scaleEighths`/8 (8 means full size). `output` must be
    /// the file's (`output(for:)`): a CMYK file is not turned into RGB here.
    public func start(scaleEighths: Int = 8, output: Output = .rgb) throws -> (width: Int, height: Int) {
        guard state == .headerRead else { throw misuse("start called twice") }
        guard (1...16).contains(scaleEighths) else { throw misuse("scale \(scaleEighths)/8 is outside 1/8…2") }
        guard let native = Self.output(for: header.colorSpace) else {
            throw JPEGError(
                code: .unsupported,
                message: "JPEGs of \(header.components) components in an unknown colour space "
                    + "are not supported", object: objectName)
        }
        guard native == output else {
            throw JPEGError(
                code: .unsupported,
                message: "\(header.colorSpace.rawValue.uppercased()) JPEGs decode to \(native), not \(output): "
                    + "render them through DarkroomImaging, which converts CMYK to RGB", object: objectName)
        }
        guard header.bitsPerSample == 8 else {
            throw JPEGError(
                code: .unsupported, message: "\(header.bitsPerSample)-bit JPEGs are not supported", object: objectName)
        }
        try check(dr_decoder_start(handle, output == .rgb ? JCS_RGB : JCS_CMYK, UInt32(scaleEighths), 0))
        self.output = output
        state = .decoding
        // A multi-scan file was read to its end by now: refuse one that stopped between scans
        // before any pixel is worked on.
        if handle.pointee.coverage.input_complete != 0,
            case .damaged(let damage, let message, let offset) = ending().verdict
        {
            throw JPEGError(code: .damaged, damage: damage, message: message, object: objectName, byteOffset: offset)
        }
        return (Int(handle.pointee.cinfo.output_width), Int(handle.pointee.cinfo.output_height))
    }

    public var outputWidth: Int { Int(handle.pointee.cinfo.output_width) }
    public var outputHeight: Int { Int(handle.pointee.cinfo.output_height) }
    /// Rows handed out (or skipped) so far.
    public var nextRow: Int { Int(handle.pointee.cinfo.output_scanline) }

    /// Decodes up to `rowCount` rows into `buffer`, each row `rowStride` bytes apart
    /// (at least `outputWidth * output.bytesPerPixel`). Returns the rows decoded; 0 at the end of the image.
    public func readRows(into buffer: UnsafeMutableRawBufferPointer, rowStride: Int, rowCount: Int) throws -> Int {
        guard state == .decoding else { throw misuse("readRows before start or after finish") }
        let count = min(rowCount, outputHeight - nextRow)
        guard count > 0 else { return 0 }
        let rowBytes = outputWidth * output.bytesPerPixel
        precondition(rowStride >= rowBytes && buffer.count >= rowStride * (count - 1) + rowBytes)
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: JSAMPLE.self) else { return 0 }
        return try withUnsafeTemporaryAllocation(of: JSAMPROW?.self, capacity: count) { rows in
            for index in 0..<count { rows[index] = base + index * rowStride }
            var read: JDIMENSION = 0
            try check(dr_decoder_read(handle, rows.baseAddress, JDIMENSION(count), &read))
            return Int(read)
        }
    }

    /// Skips rows without producing them (cheaper than decoding: no IDCT, no color conversion;
    /// their data is still decoded, so damage there is still found). Stops before the last
    /// row, which `readRows` or `finish` reads.
    public func skipRows(_ count: Int) throws {
        guard state == .decoding else { throw misuse("skipRows before start or after finish") }
        var skipped: JDIMENSION = 0
        try check(dr_decoder_skip(handle, JDIMENSION(count), &skipped))
    }

    /// Decodes the data of the rows not read (without producing them), reads the end of the
    /// stream and what follows its EOI marker, and judges how the file ended: throws if the
    /// image was not complete, else sets `warnings`. Call it after the rows you need; until it
    /// returns, no row read is known to come from an intact file.
    public func finish() throws {
        guard state == .decoding else { throw misuse("finish before start") }
        try check(dr_decoder_finish(handle))
        state = .finished
        switch ending().verdict {
        case .intact(let found):
            warnings = headerWarnings + found
        case .damaged(let damage, let message, let offset):
            throw JPEGError(code: .damaged, damage: damage, message: message, object: objectName, byteOffset: offset)
        }
    }

    /// What the boundary recorded about the end of the data so far.
    private func ending() -> JPEGEnding {
        let taken = handle.pointee.coverage
        let coverage = JPEGEnding.Coverage(
            components: Int(taken.components), componentsScanned: Int(taken.components_scanned),
            coefficientsShort: Int(taken.coefficients_short), isArithmetic: taken.arithmetic != 0)
        let trailer =
            state == .finished && handle.pointee.source.ended == 0
            ? JPEGEnding.Trailer(count: Int(handle.pointee.trailing_bytes), eoiEnd: Int(handle.pointee.eoi_end_offset))
            : nil
        let skipped = JPEGEnding.Skipped(
            betweenMarkers: Self.run(handle.pointee.skipped_between_markers),
            afterScanData: Self.run(handle.pointee.skipped_after_scan_data),
            beforeRestart: Self.run(handle.pointee.skipped_before_restart))
        return JPEGEnding(ranDryAt: Self.ranDryAt(handle), coverage: coverage, trailer: trailer, skipped: skipped)
    }

    private static func run(_ skipped: dr_jpeg_skipped) -> JPEGEnding.Run? {
        guard skipped.runs > 0 else { return nil }
        return JPEGEnding.Run(
            runs: Int(skipped.runs), bytes: Int(skipped.bytes), marker: Int(skipped.first_marker),
            markerOffset: Int(skipped.first_marker_offset))
    }

    /// The input's length when it ran out before an EOI marker; nil while it has not, and for
    /// an empty input (which is not a cut JPEG but no JPEG at all).
    private static func ranDryAt(_ handle: UnsafeMutablePointer<dr_jpeg_decoder>) -> Int? {
        let source = handle.pointee.source  // a small struct: the buffer is not copied
        return source.ended != 0 && source.delivered > 0 ? Int(source.delivered) : nil
    }

    /// Fails when the call failed, and when it met bytes inside or right after a scan's data
    /// (libjpeg goes on past them): no row it delivered is known to come from the file's data.
    private func check(_ status: Int32) throws {
        if status != DR_JPEG_OK {
            throw JPEGError(
                boundary: &handle.pointee.error, object: objectName, streamFailure: stream.failure, isDecoder: true,
                inputRanDryAt: Self.ranDryAt(handle))
        }
        if case .damaged(let damage, let message, let offset) = ending().scanDataDamage {
            throw JPEGError(code: .damaged, damage: damage, message: message, object: objectName, byteOffset: offset)
        }
    }

    private func misuse(_ message: String) -> JPEGError {
        JPEGError(code: .misuse, message: message, object: objectName)
    }

    private static func readHeader(_ handle: UnsafeMutablePointer<dr_jpeg_decoder>, stream: SourceContext, name: String)
        throws -> (JPEGHeader, [JPEGWarning])
    {
        let info = handle.pointee.cinfo
        var factors: [JPEGHeader.SamplingFactor] = []
        if let components = info.comp_info {
            for index in 0..<Int(info.num_components) {
                factors.append(
                    .init(
                        horizontal: Int(components[index].h_samp_factor),
                        vertical: Int(components[index].v_samp_factor)))
            }
        }
        var exif: [UInt8]?
        var xmp: [UInt8]?
        var hasMPF = false
        var iccChunks: [JPEGWarning.ICCChunk] = []
        var marker = info.marker_list
        while let current = marker {
            let length = Int(current.pointee.data_length)
            if Int32(current.pointee.marker) == JPEG_APP0 + 2, length >= 4, let data = current.pointee.data,
                UnsafeBufferPointer(start: data, count: 4).elementsEqual(Array("MPF".utf8) + [0])
            {
                hasMPF = true
            }
            if Int32(current.pointee.marker) == JPEG_APP0 + 2, length >= 14, let data = current.pointee.data {
                let bytes = UnsafeBufferPointer(start: data, count: length)
                if bytes.starts(with: Array("ICC_PROFILE".utf8) + [0]) {
                    iccChunks.append(.init(sequence: Int(bytes[12]), count: Int(bytes[13])))
                }
            }
            if Int32(current.pointee.marker) == JPEG_APP0 + 1, length >= 6, let data = current.pointee.data {
                let bytes = UnsafeBufferPointer(start: data, count: length)
                if exif == nil, bytes.starts(with: Array("Exif".utf8) + [0, 0]) { exif = Array(bytes) }
                let xmpSignature = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
                if xmp == nil, bytes.starts(with: xmpSignature) { xmp = Array(bytes.dropFirst(xmpSignature.count)) }
            }
            marker = current.pointee.next
        }
        var profile: UnsafeMutablePointer<JOCTET>?
        var profileLength: UInt32 = 0
        if dr_decoder_icc_profile(handle, &profile, &profileLength) != DR_JPEG_OK {
            throw JPEGError(
                boundary: &handle.pointee.error, object: name, streamFailure: stream.failure, isDecoder: true,
                inputRanDryAt: ranDryAt(handle))
        }
        var icc: [UInt8]?
        if let profile {
            icc = [UInt8](UnsafeBufferPointer(start: profile, count: Int(profileLength)))
            free(profile)
        }
        var header = JPEGHeader(
            width: Int(info.image_width), height: Int(info.image_height),
            components: Int(info.num_components), colorSpace: .init(info.jpeg_color_space),
            isProgressive: info.progressive_mode != 0 || jpegHasMultipleScans(handle),
            bitsPerSample: Int(info.data_precision), samplingFactors: factors,
            exifPayload: exif, iccProfile: icc)
        header.xmpPacket = xmp
        header.hasMPF = hasMPF
        header.adobeTransform = info.saw_Adobe_marker != 0 ? Int(info.Adobe_transform) : nil
        // libjpeg refused the chunks (and said so with a warning, recorded by the boundary).
        let unreadable = handle.pointee.icc_warning_code >= 0 && icc == nil
        return (header, unreadable ? [.iccUnreadable(chunks: iccChunks)] : [])
    }

    private static func jpegHasMultipleScans(_ handle: UnsafeMutablePointer<dr_jpeg_decoder>) -> Bool {
        jpeg_has_multiple_scans(&handle.pointee.cinfo) != 0
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
