import Hummingbird
import HummingbirdCore
import Logging

/// What one client may hold of a darkroom HTTP listener (the dashboard, a worker's metrics): how
/// long a request's head and body may take to arrive, how long a kept-alive connection may wait
/// for its next request, and how many connections are open at once. A client that sends its
/// headers a byte at a time (slowloris) is closed at `headerTimeout`, so the connection cap cannot
/// be filled for longer than that by clients that never finish a request.
public struct ServerLimits: Sendable, Hashable {
    /// From a request's first byte to the end of its head.
    public var headerTimeout: Duration
    /// From a request's head to its end (the dashboard's forms are at most 16 KiB).
    public var bodyTimeout: Duration
    /// A connection with no request in progress: from its opening, or from its last response.
    public var idleTimeout: Duration
    /// Connections open at once; past it, new ones wait in the listen backlog.
    public var maxConnections: Int

    public init(headerTimeout: Duration, bodyTimeout: Duration, idleTimeout: Duration, maxConnections: Int) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }

    /// nginx's order of magnitude, tighter on headers: a browser sends a head in one packet.
    public static let defaults = ServerLimits(
        headerTimeout: .seconds(10), bodyTimeout: .seconds(30), idleTimeout: .seconds(60), maxConnections: 512)

    /// Why these limits cannot work; nil: they can.
    public var problem: String? {
        for (name, value) in [("header", headerTimeout), ("body", bodyTimeout), ("idle", idleTimeout)]
        where value <= .zero || value > .seconds(3600) {
            return "the \(name) timeout must be more than 0 s and at most 3600 s"
        }
        return (1...65536).contains(maxConnections) ? nil : "the connection cap must be 1…65536"
    }

    /// HTTP/1.1 with `RequestDeadlines` on every connection.
    public var server: HTTPServerBuilder {
        .http1(configuration: .init(additionalChannelHandlers: [RequestDeadlines(limits: self)]))
    }

    /// The application's configuration for `address`, with the connection cap.
    public func configuration(address: ListenAddress, serverName: String, logger: Logger)
        -> ApplicationConfiguration
    {
        ApplicationConfiguration(
            address: .hostname(address.host, port: address.port), serverName: serverName,
            availableConnectionsDelegate: MaximumAvailableConnections(maxConnections, logger: logger))
    }
}
