/// Why `OutputExif.rewrite` refused a payload. Whatever the code, the caller's remedy is the
/// same: write the rendered JPEG without EXIF and log this error.
public struct ExifRewriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable reason, spelled in snake_case wherever it is recorded.
    public enum Code: String, Sendable, Hashable, CustomStringConvertible {
        /// The bytes do not start with `Exif\0\0`.
        case notExifPayload = "not_exif_payload"
        /// More bytes than one APP1 segment can carry.
        case payloadTooLarge = "payload_too_large"
        /// The new pixel size is not positive or does not fit a TIFF LONG.
        case invalidDimensions = "invalid_dimensions"
        /// Neither "II" nor "MM" with the magic number 42.
        case invalidTIFFHeader = "invalid_t_i_f_f_header"
        /// An offset or count points past the end of the payload.
        case outOfBounds = "out_of_bounds"
        /// A directory with zero entries, which TIFF forbids.
        case emptyDirectory = "empty_directory"
        /// An entry that must be a single LONG offset is something else.
        case malformedEntry = "malformed_entry"
        /// Two structures share bytes: an IFD loop, or a thumbnail overlapping tag data.
        case overlappingStructures = "overlapping_structures"
        /// A pointer to another directory where EXIF puts none (in IFD1, or a second Exif IFD):
        /// the rewrite could not keep what libexif reads through it.
        case misplacedPointer = "misplaced_pointer"
        /// More linked directories than `ExifLayout.maxDirectories`.
        case tooManyDirectories = "too_many_directories"

        public var description: String { rawValue }
    }

    public var code: Code
    /// What is wrong and what to do about it.
    public var message: String
    /// Where in the payload it went wrong (offsets relative to the TIFF header).
    public var context: [String: String]

    public init(code: Code, message: String, context: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.context = context
    }

    public var description: String {
        let details = context.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return "ExifRewriteError.\(code): \(message)"
            + (details.isEmpty ? "" : " [" + details.joined(separator: ", ") + "]")
    }

    /// The advice shared by every structural problem.
    static let remedy = "The EXIF block cannot be patched safely; write the rendered JPEG without EXIF."

    static func structure(_ code: Code, _ problem: String, _ context: [String: String]) -> ExifRewriteError {
        ExifRewriteError(code: code, message: "\(problem). \(remedy)", context: context)
    }
}
