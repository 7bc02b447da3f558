/// Why an APP1 payload could not be turned into an `ExifDocument`.
public struct ExifDocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, matchable reason. A struct rather than an enum so reasons can be added
    /// without breaking exhaustive `switch`es in callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case notExifPayload, payloadTooLarge, outOfMemory, noReadableEntries
        }

        private let base: Base

        /// The bytes do not start with `Exif\0\0`.
        public static let notExifPayload = Code(base: .notExifPayload)
        /// More bytes than one APP1 segment can carry.
        public static let payloadTooLarge = Code(base: .payloadTooLarge)
        /// libexif could not allocate its structures.
        public static let outOfMemory = Code(base: .outOfMemory)
        /// libexif parsed the block but kept no entry in any IFD: the block is corrupt or empty.
        public static let noReadableEntries = Code(base: .noReadableEntries)

        public var description: String { base.rawValue }
    }

    public var code: Code
    /// What happened and what the caller should do about it.
    public var message: String
    /// Facts that help diagnose the payload, e.g. its size and libexif's own complaints.
    public var context: [String: String]

    public init(code: Code, message: String, context: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.context = context
    }

    public var description: String {
        let details = context.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return "ExifDocumentError.\(code): \(message)"
            + (details.isEmpty ? "" : " [" + details.joined(separator: ", ") + "]")
    }
}
