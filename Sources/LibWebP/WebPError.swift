internal import CWebP

/// A WebP that could not be written: what was wrong (a stable `code`, a message saying what to
/// do), the object being written, and, when libwebp refused, its own error code as the cause.
public struct WebPError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The width or height is outside 1…16383, WebP's limit per side.
        case invalidSize
        /// The pixel buffer does not hold width × height RGB pixels.
        case invalidBuffer
        /// The quality or method is outside its range.
        case invalidSettings
        /// An ICC profile, EXIF block or XMP packet that is malformed or too large to carry.
        case invalidMetadata
        /// libwebp could not encode the picture (see `cause`).
        case encodeFailed
        case outOfMemory
        /// libwebp could not assemble the container with its metadata chunks (see `cause`).
        case muxFailed
    }

    /// libwebp's own error, by its value in the C enum; named in `description`.
    public enum Cause: Sendable, Equatable, CustomStringConvertible {
        /// A `WebPEncodingError` from `WebPPictureImportRGB` or `WebPEncode`.
        case encoding(Int)
        /// A `WebPMuxError` from `WebPMuxSetImage`, `WebPMuxSetChunk` or `WebPMuxAssemble`.
        case mux(Int)

        public var description: String {
            switch self {
            case .encoding(let value):
                let names = [
                    "VP8_ENC_OK", "VP8_ENC_ERROR_OUT_OF_MEMORY", "VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY",
                    "VP8_ENC_ERROR_NULL_PARAMETER", "VP8_ENC_ERROR_INVALID_CONFIGURATION",
                    "VP8_ENC_ERROR_BAD_DIMENSION", "VP8_ENC_ERROR_PARTITION0_OVERFLOW",
                    "VP8_ENC_ERROR_PARTITION_OVERFLOW", "VP8_ENC_ERROR_BAD_WRITE", "VP8_ENC_ERROR_FILE_TOO_BIG",
                    "VP8_ENC_ERROR_USER_ABORT",
                ]
                return "libwebp \(names.indices.contains(value) ? names[value] : "encoding error \(value)")"
            case .mux(let value):
                let names = [
                    1: "WEBP_MUX_OK", 0: "WEBP_MUX_NOT_FOUND", -1: "WEBP_MUX_INVALID_ARGUMENT",
                    -2: "WEBP_MUX_BAD_DATA", -3: "WEBP_MUX_MEMORY_ERROR", -4: "WEBP_MUX_NOT_ENOUGH_DATA",
                ]
                return "libwebp \(names[value] ?? "mux error \(value)")"
            }
        }
    }

    public var code: Code
    public var message: String
    /// The object being written (a storage key or a path), as the caller named it.
    public var name: String
    public var cause: Cause?

    public init(code: Code, message: String, name: String, cause: Cause? = nil) {
        self.code = code
        self.message = message
        self.name = name
        self.cause = cause
    }

    /// From a picture's error code after a failed import or encode: memory apart, since a
    /// retry with more memory can succeed where other failures cannot.
    init(encoding error: WebPEncodingError, name: String) {
        let cause = Cause.encoding(Int(error.rawValue))
        switch error {
        case VP8_ENC_ERROR_OUT_OF_MEMORY, VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY:
            self.init(
                code: .outOfMemory, message: "libwebp ran out of memory while encoding; retry with more memory free",
                name: name, cause: cause)
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW, VP8_ENC_ERROR_PARTITION_OVERFLOW, VP8_ENC_ERROR_FILE_TOO_BIG:
            self.init(
                code: .encodeFailed,
                message: "the coded picture exceeds a limit of the WebP format; lower the quality or the size",
                name: name, cause: cause)
        default:
            self.init(
                code: .encodeFailed, message: "libwebp could not encode the picture; a bug in darkroom's call",
                name: name, cause: cause)
        }
    }

    /// From a mux call that did not return `WEBP_MUX_OK`.
    init(mux error: WebPMuxError, step: String, name: String) {
        let cause = Cause.mux(Int(error.rawValue))
        if error == WEBP_MUX_MEMORY_ERROR {
            self.init(
                code: .outOfMemory, message: "libwebp ran out of memory in \(step); retry with more memory free",
                name: name, cause: cause)
        } else {
            self.init(
                code: .muxFailed,
                message: "libwebp refused \(step); write the image without its metadata, or check the metadata",
                name: name, cause: cause)
        }
    }

    public var description: String {
        var text = "\(name): \(message)"
        if let cause { text += " (\(cause))" }
        return text
    }
}
