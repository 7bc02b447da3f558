internal import CPostgres
import Timing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One `NOTIFY` delivered to a channel this connection listens on.
public struct PostgresNotification: Sendable, Hashable {
    public var channel: String
    public var payload: String
    /// The server process of the session that sent it.
    public var backendPID: Int32

    public init(channel: String, payload: String, backendPID: Int32) {
        self.channel = channel
        self.payload = payload
        self.backendPID = backendPID
    }
}

extension PostgresConnection {
    /// Starts receiving notifications sent to `channel` (any text; it is quoted as an identifier).
    public func listen(_ channel: String) throws {
        try execute("LISTEN \(try quotedIdentifier(channel))")
    }

    public func unlisten(_ channel: String) throws {
        try execute("UNLISTEN \(try quotedIdentifier(channel))")
    }

    /// Returns the notifications that have arrived, waiting up to `timeout` for the first one.
    /// An empty array means the timeout passed without any.
    public func waitForNotification(timeout: Duration) throws -> [PostgresNotification] {
        let deadline = ContinuousClock.now + timeout
        while true {
            // Queries may already have pulled notifications into libpq's queue.
            let arrived = try receivedNotifications()
            if !arrived.isEmpty { return arrived }

            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return [] }
            let socket = PQsocket(handle)
            guard socket >= 0 else {
                throw PostgresError(
                    code: .connectionLost, message: "the connection has no socket: \(Self.errorMessage(of: handle))")
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Self.milliseconds(roundingUp: remaining))
            if ready < 0 && errno != EINTR {
                throw PostgresError(
                    code: .connectionLost,
                    message: "poll(2) on the connection's socket failed: \(String(cString: strerror(errno)))")
            }
            // On readiness, EINTR or timeout, loop: input is consumed and the deadline re-checked.
        }
    }

    /// Reads whatever input is waiting on the socket and drains libpq's notification queue.
    private func receivedNotifications() throws -> [PostgresNotification] {
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(code: .connectionLost, message: Self.errorMessage(of: handle))
        }
        var notifications: [PostgresNotification] = []
        while let notify = PQnotifies(handle) {
            defer { PQfreemem(notify) }
            notifications.append(
                PostgresNotification(
                    channel: String(cString: notify.pointee.relname),
                    payload: notify.pointee.extra.map { String(cString: $0) } ?? "",
                    backendPID: notify.pointee.be_pid
                ))
        }
        return notifications
    }

    private static func milliseconds(roundingUp duration: Duration) -> Int32 {
        Int32(clamping: duration.wholeMillisecondsRoundedUp)
    }
}
