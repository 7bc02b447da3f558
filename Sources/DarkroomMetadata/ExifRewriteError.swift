/// Why `OutputExif.rewrite` refused a payload. Whatever the code, the caller's remedy is the
/// same: write the rendered JPEG without EXIF and log this error.
public struct ExifRewriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, matchable reason; a struct so new reasons do not break callers' `switch`es.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case notExifPayload, payloadTooLarge, invalidDimensions, invalidTIFFHeader
            case outOfBounds, emptyDirectory, malformedEntry, overlappingStructures
            case misplacedPointer, tooManyDirectories
        }

        private let base: Base

        /// The bytes do not start with `Exif\0\0`.
        public static let notExifPayload = Code(base: .notExifPayload)
        /// More bytes than one APP1 segment can carry.
        public static let payloadTooLarge = Code(base: .payloadTooLarge)
        /// The new pixel size is not positive or does not fit a TIFF LONG.
        public static let invalidDimensions = Code(base: .invalidDimensions)
        /// Neither "II" nor "MM" with the magic number 42.
        public static let invalidTIFFHeader = Code(base: .invalidTIFFHeader)
        /// An offset or count points past the end of the payload.
        public static let outOfBounds = Code(base: .outOfBounds)
        /// A directory with zero entries, which TIFF forbids.
        public static let emptyDirectory = Code(base: .emptyDirectory)
        /// An entry that must be a single LONG offset is something else.
        public static let malformedEntry = Code(base: .malformedEntry)
        /// Two structures share bytes: an IFD loop, or a thumbnail overlapping tag data.
        public static let overlappingStructures = Code(base: .overlappingStructures)
        /// A pointer to another directory where EXIF puts none (in IFD1, or a second Exif IFD):
        /// the rewrite could not keep what libexif reads through it.
        public static let misplacedPointer = Code(base: .misplacedPointer)
        /// More linked directories than `ExifLayout.maxDirectories`.
        public static let tooManyDirectories = Code(base: .tooManyDirectories)

        public var description: String { base.rawValue }
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
