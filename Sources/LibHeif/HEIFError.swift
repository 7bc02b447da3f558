import ByteStreams
package import CHeif

/// A HEIF or AVIF file that could not be read, decoded or written: the object (a storage key or
/// a path), what is wrong and what to do, what libheif said (its code and subcode kept as
/// numbers, its message copied at once: libheif overwrites it with the next error), and, when
/// the bytes could not be read at all, the stream's own error.
public struct HEIFError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The bytes could not be read or written (see `cause`).
        case io
        /// The bytes are not a readable HEIF: boxes missing or malformed, no image, sizes that
        /// contradict each other.
        case corrupt
        /// A well-formed file whose data ends early or whose coded image does not decode.
        case damaged
        /// A valid file darkroom does not read (a codec or feature libheif lacks, an ISO media
        /// file that is not an image); when writing, an encoder libheif lacks (its plugin).
        case unsupported
        /// Larger than a limit darkroom sets (pixels per side, or bytes held in memory).
        case tooLarge
        case outOfMemory
        /// The caller used the API out of order or asked for what cannot be (a picture of no size,
        /// a buffer of the wrong length, a quality or speed out of range); a bug in darkroom, not
        /// in the file.
        case misuse
    }

    public var code: Code
    public var message: String
    /// The object read or written, as its stream names it.
    public var object: String
    /// libheif's `heif_error_code` and `heif_suberror_code`; 0 when the error is darkroom's own.
    public var libheifCode: Int
    public var libheifSubcode: Int
    /// Why the bytes could not be read, for `.io` errors from a stream.
    public var cause: StreamError?
    /// The file's size, when it was too large to hold in memory (`.tooLarge` from darkroom's limit).
    public var fileBytes: Int?
    /// Whether the error came from writing a file (`HEIFWriter`), not from reading one: its
    /// message says what to do, and no advice about the input is added.
    public var whileWriting = false

    public init(
        code: Code, message: String, object: String, libheifCode: Int = 0, libheifSubcode: Int = 0,
        cause: StreamError? = nil
    ) {
        self.code = code
        self.message = message
        self.object = object
        self.libheifCode = libheifCode
        self.libheifSubcode = libheifSubcode
        self.cause = cause
    }

    /// From a `heif_error` that is not Ok; `message` is copied here, before libheif reuses it.
    package init(_ error: heif_error, object: String) {
        // Some of libheif's messages end in a newline.
        let message = String(
            (error.message.map { String(cString: $0) } ?? "").reversed().drop(while: \.isWhitespace).reversed())
        self.init(
            code: Self.classify(error.code, error.subcode), message: message.isEmpty ? "libheif error" : message,
            object: object, libheifCode: Int(error.code.rawValue), libheifSubcode: Int(error.subcode.rawValue))
    }

    /// From a `heif_error` libheif or its encoder returned while writing. The writer checks what
    /// it is given first, so what fails after is no file's fault: an allocation (`.outOfMemory`),
    /// an encoder or feature this libheif lacks (`.unsupported`), else `.misuse`.
    package init(writing error: heif_error, object: String) {
        self.init(error, object: object)
        code =
            switch error.code {
            case heif_error_Memory_allocation_error:
                error.subcode == heif_suberror_Security_limit_exceeded ? .tooLarge : .outOfMemory
            case heif_error_Unsupported_feature, heif_error_Unsupported_filetype, heif_error_Plugin_loading_error:
                .unsupported
            default: .misuse
            }
        whileWriting = true
    }

    /// darkroom's own refusal while writing (`HEIFWriter`), libheif not asked.
    package static func writing(_ code: Code, _ message: String, object: String) -> HEIFError {
        var error = HEIFError(code: code, message: message, object: object)
        error.whileWriting = true
        return error
    }

    /// A file that is no HEIF: an ISO media file of another kind, or no ISO media file at all.
    public static func notHEIF(_ fileType: HEIFFileType?, object: String) -> HEIFError {
        let message =
            fileType.map {
                "an ISO media file of brand '\($0.majorBrand)' (\($0.compatibleBrands.joined(separator: ", "))), not a HEIF or AVIF image"
            } ?? "not a HEIF file: it has no 'ftyp' box"
        return HEIFError(code: .unsupported, message: message, object: object)
    }

    /// Whether the bytes themselves are bad (as opposed to reading them, or darkroom's limits).
    public var isDamagedData: Bool { code == .damaged || code == .corrupt }

    static func classify(_ code: heif_error_code, _ subcode: heif_suberror_code) -> Code {
        switch code {
        case heif_error_Input_does_not_exist: .io
        case heif_error_Invalid_input:
            switch subcode {
            case heif_suberror_End_of_data, heif_suberror_Missing_grid_images, heif_suberror_No_item_data: .damaged
            default: .corrupt
            }
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature, heif_error_Plugin_loading_error:
            .unsupported
        case heif_error_Memory_allocation_error:
            switch subcode {
            case heif_suberror_Security_limit_exceeded: .tooLarge
            // libheif 1.19 reports a tile or image of no size as an allocation failure: the data's fault.
            case heif_suberror_Invalid_image_size: .corrupt
            default: .outOfMemory
            }
        case heif_error_Decoder_plugin_error: .damaged
        default: .misuse
        }
    }

    public var description: String {
        var text = "\(object): \(message)"
        if libheifCode != 0 { text += " (libheif error \(libheifCode).\(libheifSubcode))" }
        if whileWriting { return text }
        switch code {
        case .damaged, .corrupt: text += "; the HEIF data is damaged"
        case .unsupported: text += "; convert it to JPEG first"
        case .io, .tooLarge, .outOfMemory, .misuse: break
        }
        return text
    }
}

/// Throws the error a libheif call returned, if it is not Ok.
@inline(__always)
package func check(_ error: heif_error, object: String) throws(HEIFError) {
    if error.code != heif_error_Ok { throw HEIFError(error, object: object) }
}
