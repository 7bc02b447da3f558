/// Why the process boundary could not be kept: the child would not start, could not confine
/// itself, or broke the channel's rules. A `code` decides; the message is for people.
public struct SandboxError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The child could not be started (no executable, no memory for a process).
        case spawnFailed = "sandbox_spawn_failed"
        /// The kernel refused the confinement (no seccomp, or not on this architecture).
        case confinementFailed = "sandbox_confinement_failed"
        /// A frame broke the channel's rules (too large, of no known kind, cut short).
        case protocolViolation = "sandbox_protocol_violation"
        /// The channel failed underneath (the other side is gone).
        case channelClosed = "sandbox_channel_closed"
    }

    public var code: Code
    public var message: String
    public var systemErrno: Int32?

    public init(_ code: Code, _ message: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.systemErrno = errno
    }

    public var description: String {
        "\(message)" + (systemErrno.map { " (errno \($0))" } ?? "") + " [\(code.rawValue)]"
    }
}
