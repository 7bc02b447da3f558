/// Why an APP1 payload could not be turned into an `ExifDocument`.
public struct ExifDocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable reason, spelled in snake_case wherever it is recorded.
    public enum Code: String, Sendable, Hashable, CustomStringConvertible {
        /// The bytes do not start with `Exif\0\0`.
        case notExifPayload = "not_exif_payload"
        /// More bytes than one APP1 segment can carry.
        case payloadTooLarge = "payload_too_large"
        /// libexif could not allocate its structures.
        case outOfMemory = "out_of_memory"
        /// libexif parsed the block but kept no entry in any IFD: the block is corrupt or empty.
        case noReadableEntries = "no_readable_entries"

        public var description: String { rawValue }
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
