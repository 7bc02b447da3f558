internal import CExif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Owns one `ExifLog` and collects the messages libexif reports through it, so corrupt-data
/// complaints become values instead of stderr noise.
///
/// libexif keeps its own references to the log (in every IFD and the MakerNote parser), so
/// `deinit` first unhooks the callback: a later message then goes nowhere instead of to a
/// freed Swift object.
final class ExifLogCapture {
    /// Enough to see what went wrong; a hostile file can otherwise produce one message per entry.
    static let messageLimit = 32

    let log: OpaquePointer
    private(set) var messages: [String] = []
    private var suppressedCount = 0

    init?() {
        guard let log = exif_log_new() else { return nil }
        self.log = log
        exif_log_set_func(log, exifLogCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        exif_log_set_func(log, nil, nil)
        exif_log_unref(log)
    }

    /// The collected messages, with a final line counting those left out.
    var warnings: [String] {
        suppressedCount == 0 ? messages : messages + ["(\(suppressedCount) more libexif messages not shown)"]
    }

    fileprivate func record(code: ExifLogCode, message: String) {
        // Debug chatter ("Loading entry 0x10f…") is not a warning; corrupt data and
        // allocation failures are.
        guard code == EXIF_LOG_CODE_CORRUPT_DATA || code == EXIF_LOG_CODE_NO_MEMORY else { return }
        guard !messages.contains(message) else { return }
        if messages.count < Self.messageLimit {
            messages.append(message)
        } else {
            suppressedCount += 1
        }
    }
}

private func exifLogCallback(
    _ log: OpaquePointer?,
    _ code: ExifLogCode,
    _ domain: UnsafePointer<CChar>?,
    _ format: UnsafePointer<CChar>?,
    _ arguments: CVaListPointer?,
    _ context: UnsafeMutableRawPointer?
) {
    guard let context, let format, let arguments else { return }
    let capture = Unmanaged<ExifLogCapture>.fromOpaque(context).takeUnretainedValue()
    // A va_list can be consumed only once, so format into a fixed buffer and accept truncation.
    let capacity = 512
    let text = withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
        guard let base = buffer.baseAddress else { return "" }
        base[0] = 0
        _ = vsnprintf(base, capacity, format, arguments)
        return String(cString: base)
    }
    let prefix = domain.map { String(cString: $0) + ": " } ?? ""
    capture.record(code: code, message: prefix + text)
}
