/// A JPEG that could not be read or written, with the file and, when libjpeg knows it,
/// the byte offset where decoding stopped.
public struct JPEGError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The file could not be opened, read, written or synced (see `systemErrno`).
        case io
        /// The bytes are not a JPEG, or libjpeg met a fatal error in them.
        case corrupt
        /// libjpeg could go on, but only by inventing pixels (truncated or damaged entropy data).
        case damaged
        /// A valid JPEG darkroom does not render (CMYK, 12-bit, ...).
        case unsupported
        /// The caller used the API out of order; a bug in darkroom, not in the file.
        case misuse
        case outOfMemory
    }

    public var code: Code
    public var message: String
    public var path: String
    public var byteOffset: Int?
    public var systemErrno: Int32?

    public init(code: Code, message: String, path: String, byteOffset: Int? = nil, systemErrno: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.byteOffset = byteOffset
        self.systemErrno = systemErrno
    }

    public var description: String {
        var text = "\(path): \(message)"
        if let byteOffset { text += " (at byte \(byteOffset))" }
        switch code {
        case .damaged, .corrupt: text += "; the file is damaged — re-import it from an intact copy"
        case .unsupported: text += "; convert it to an 8-bit RGB or greyscale JPEG first"
        case .io, .misuse, .outOfMemory: break
        }
        return text
    }
}
