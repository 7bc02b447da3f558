/// Why an XMP packet's date and location were not read.
public struct XMPMetadataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable reason, spelled in snake_case wherever it is recorded.
    public enum Code: String, Sendable, Hashable, CustomStringConvertible {
        /// More bytes than `XMPMetadata.maxPacketBytes`.
        case tooLarge = "too_large"
        /// A `<!DOCTYPE` or `<!ENTITY`: XMP has no use for one, and entities are not expanded.
        case declaresDTD = "declares_dtd"

        public var description: String { rawValue }
    }

    public var code: Code
    /// What is wrong and what the caller should do about it.
    public var message: String
    /// Facts about the packet, such as its size.
    public var context: [String: String]

    public init(code: Code, message: String, context: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.context = context
    }

    public var description: String {
        let details = context.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return "XMPMetadataError.\(code): \(message)"
            + (details.isEmpty ? "" : " [" + details.joined(separator: ", ") + "]")
    }
}
