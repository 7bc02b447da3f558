import ByteStreams
import JPEGTurbo
import LibHeif

/// An image file a codec could not read (an input) or write (an output), whatever the format:
/// a stable code, the format, the object at fault, the byte offset when known, and the codec's
/// own error as `cause`. Callers decide on `code` and `format`, never on the message, and never
/// see a codec's type.
public struct CodecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable: spelled into the failure codes operators query (`jpeg_damaged`, `heif_too_large`).
    public enum Code: String, Sendable, CaseIterable {
        /// The bytes could not be read or written (see `streamError`).
        case io
        /// The bytes are not a readable image: not the format, or malformed beyond reading.
        case corrupt
        /// A well-formed file whose data ends early or does not decode.
        case damaged
        /// A valid file of a kind darkroom does not render.
        case unsupported
        /// Larger than a limit darkroom sets (pixels per side, or bytes held in memory).
        case tooLarge = "too_large"
        case outOfMemory = "out_of_memory"
        /// darkroom used the codec out of order: a bug in darkroom, not in the file.
        case misuse
    }

    /// The file's format (an input's as told by its content), which names its codec.
    public enum Format: String, Sendable, CaseIterable {
        /// libjpeg-turbo reads and writes it.
        case jpeg
        /// HEIC, AVIF and other HEIF files, read (and AVIF renditions written) by libheif.
        case heif
        /// WebP renditions, written by libwebp.
        case webp
    }

    public var code: Code
    public var format: Format
    public var message: String
    /// The object read or written, as its stream names it (a storage key or a path).
    public var object: String
    public var byteOffset: Int?
    /// Decided from the codec's error here, where it is known which of its failures a retry can cure.
    public var isPermanent: Bool
    /// The codec's own error (`JPEGError`, `HEIFError`) or the stream's (`StreamError`).
    public var cause: any Error & Sendable

    public init(
        code: Code, format: Format, message: String, object: String, byteOffset: Int? = nil,
        isPermanent: Bool, cause: any Error & Sendable
    ) {
        self.code = code
        self.format = format
        self.message = message
        self.object = object
        self.byteOffset = byteOffset
        self.isPermanent = isPermanent
        self.cause = cause
    }

    /// The bytes themselves are bad: truncated, corrupt, not an image.
    public var isDamagedData: Bool { code == .damaged || code == .corrupt }

    /// The storage's error underneath, when reading or writing the bytes failed.
    public var streamError: StreamError? {
        switch cause {
        case let error as StreamError: error
        case let error as JPEGError: error.cause
        case let error as HEIFError: error.cause
        default: nil
        }
    }

    /// What to do about an unsupported file.
    public var conversionAdvice: String {
        switch format {
        case .jpeg: "convert it to an 8-bit RGB or greyscale JPEG first"
        case .heif: "convert it to JPEG first"
        case .webp: "write the rendition as JPEG or AVIF"
        }
    }

    /// The codec's own account (it names the object and, for damage, says so).
    public var description: String { "\(cause)" }

    /// The cause is not compared: two errors with the same facts are the same error.
    public static func == (lhs: CodecError, rhs: CodecError) -> Bool {
        lhs.code == rhs.code && lhs.format == rhs.format && lhs.message == rhs.message
            && lhs.object == rhs.object && lhs.byteOffset == rhs.byteOffset
            && lhs.isPermanent == rhs.isPermanent
    }
}

extension CodecError {
    init(_ error: JPEGError) {
        let code: Code =
            switch error.code {
            case .io: .io
            case .corrupt: .corrupt
            case .damaged: .damaged
            case .unsupported: .unsupported
            case .misuse: .misuse
            case .outOfMemory: .outOfMemory
            }
        // An object store that rejects the credentials rejects every retry too.
        let permanent = error.cause?.code == .rejected || (error.code != .io && error.code != .outOfMemory)
        self.init(
            code: code, format: .jpeg, message: error.message, object: error.object, byteOffset: error.byteOffset,
            isPermanent: permanent, cause: error)
    }

    init(_ error: HEIFError) {
        let code: Code =
            switch error.code {
            case .io: .io
            case .corrupt: .corrupt
            case .damaged: .damaged
            case .unsupported: .unsupported
            case .tooLarge: .tooLarge
            case .outOfMemory: .outOfMemory
            case .misuse: .misuse
            }
        let permanent =
            error.cause?.code == .rejected
            || (error.code != .io && error.code != .outOfMemory && error.code != .misuse)
        self.init(
            code: code, format: .heif, message: error.message, object: error.object, isPermanent: permanent,
            cause: error)
    }

    /// Writing an encoded file of `format` (a WebP or AVIF rendition, encoded whole) to its
    /// stream failed: the storage's error, under the format's code; a rejecting store rejects
    /// every retry too.
    init(writing error: StreamError, format: Format, object: String) {
        self.init(
            code: .io, format: format, message: error.message, object: object, byteOffset: error.byteOffset,
            isPermanent: error.code == .rejected, cause: error)
    }

    /// Reading the first bytes, to tell the format, failed: reported as libjpeg would report it.
    init(sniffing error: StreamError, object: String) {
        self.init(
            JPEGError(
                code: .io, message: error.message, object: object, byteOffset: error.byteOffset,
                systemErrno: error.systemErrno, cause: error))
    }
}
