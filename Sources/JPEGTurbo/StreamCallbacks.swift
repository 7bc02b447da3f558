import ByteStreams
internal import CJPEG
internal import CJPEGBoundary

/// What a C callback reaches through its context pointer: the stream, and the error it threw,
/// kept for the Swift call that is waiting on the dr_* function. Owned by the codec that owns
/// the C handle, so it outlives every callback.
final class SourceContext {
    let source: any ByteSource
    var failure: StreamError?
    /// While set, reads stop after this many bytes in all (the header's limit), and a read
    /// past it fails with `readPastLimit` set instead of a stream error.
    var limit: Int?
    private(set) var delivered = 0
    private(set) var readPastLimit = false
    init(_ source: any ByteSource) { self.source = source }
    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        var buffer = buffer
        if let limit {
            guard delivered < limit else {
                readPastLimit = true
                return -1
            }
            buffer = UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(limit - delivered))
        }
        let got = try source.read(into: buffer)
        delivered += got
        return got
    }
}

final class SinkContext {
    let sink: any ByteSink
    var failure: StreamError?
    init(_ sink: any ByteSink) { self.sink = sink }
    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

/// Never throws into C: a failure is kept in the context and reported as -1; the boundary then
/// stops libjpeg inside its own frames and the dr_* call returns DR_JPEG_FAILED.
let readFromSource: dr_read_callback = { context, buffer, capacity in
    let box = Unmanaged<SourceContext>.fromOpaque(context!).takeUnretainedValue()
    do throws(StreamError) {
        return try box.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity))
    } catch {
        box.failure = error
        return -1
    }
}

let writeToSink: dr_write_callback = { context, bytes, count in
    let box = Unmanaged<SinkContext>.fromOpaque(context!).takeUnretainedValue()
    do throws(StreamError) {
        try box.sink.write(UnsafeRawBufferPointer(start: bytes, count: count))
        return 0
    } catch {
        box.failure = error
        return -1
    }
}

/// The message libjpeg (or the boundary) left in an error manager.
func boundaryMessage(_ error: inout dr_jpeg_error) -> String {
    withUnsafeBytes(of: &error.message) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
}

extension JPEGError {
    /// The error a failed dr_* call left: the stream's own error when a callback failed.
    /// `inputRanDryAt` (decoders only) is where the input ran out before an EOI marker, if it
    /// did; `inHeader`, that the decoder was reading the markers before the first scan.
    init(
        boundary error: inout dr_jpeg_error, object: String, streamFailure: StreamError?, isDecoder: Bool,
        inputRanDryAt: Int? = nil, inHeader: Bool = false
    ) {
        let offset = error.failed_at_offset >= 0 ? Int(error.failed_at_offset) : nil
        if error.stream_failed != 0 {
            let cause =
                streamFailure
                ?? StreamError(
                    code: .io, object: object,
                    message: "the stream returned more bytes than it was asked for (a bug in its backend)",
                    byteOffset: offset)
            self.init(
                code: .io, message: (isDecoder ? "cannot read: " : "cannot write: ") + cause.message, object: object,
                byteOffset: cause.byteOffset ?? offset, systemErrno: cause.systemErrno, cause: cause)
            return
        }
        let message = boundaryMessage(&error)
        guard isDecoder else {
            // Not the output: libjpeg's compressor ran out of memory or was misused. Retrying
            // is the cautious answer, as it always was.
            self.init(code: .io, message: message, object: object, byteOffset: offset)
            return
        }
        // A fatal error from the boundary itself (message_code -1: a scan limit, a misuse) is
        // about the file or the caller, not about where the input ended.
        let fromLibjpeg = error.message_code >= 0
        if fromLibjpeg, error.failed_on_warning == 0, unsupportedCoding.contains(UInt32(error.message_code)) {
            self.init(code: .unsupported, message: message, object: object, byteOffset: offset)
            return
        }
        guard
            let damage = Damage(
                warningCode: error.failed_on_warning != 0 ? error.message_code : nil,
                inputRanDry: fromLibjpeg && inputRanDryAt != nil, inHeader: inHeader)
        else {
            self.init(code: .corrupt, message: message, object: object, byteOffset: offset)
            return
        }
        self.init(
            code: .damaged, damage: damage, message: Self.describe(damage, libjpeg: message, end: inputRanDryAt),
            object: object, byteOffset: inputRanDryAt ?? offset)
    }

    /// libjpeg's text says what it met; for a cut file it does not say that the file was cut.
    /// (Where it ends is the error's byte offset.)
    private static func describe(_ damage: Damage, libjpeg message: String, end: Int?) -> String {
        guard end != nil else { return message }
        switch damage {
        case .cutInScanData:
            return "the file ends inside its scan data: the rest of the image is missing (libjpeg: \(message))"
        case .cutInMarkers:
            return "the file ends before its image data is complete (libjpeg: \(message))"
        case .cutBetweenScans, .corruptScanData, .unverifiableEnd, .inconsistentMarkers:
            return message
        }
    }
}

/// libjpeg's fatal errors for a well-formed JPEG it was not built to decode: 12- or 16-bit
/// samples, lossless or hierarchical coding. The file is not damaged; it needs another decoder.
private let unsupportedCoding: Set<UInt32> = [
    JERR_BAD_PRECISION.rawValue, JERR_SOF_UNSUPPORTED.rawValue, JERR_NOT_COMPILED.rawValue,
]
