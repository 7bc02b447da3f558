import DarkroomMetrics
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle

/// A metrics-only HTTP listener: `/metrics` with what this process recorded (and the queue's
/// gauges when given a database) and `/healthz`. A worker runs one beside itself
/// (`worker --metrics-listen`), and it stops with the worker.
public enum MetricsServer {
    /// The listener as a swift-service-lifecycle service. `onListening` gets the bound port
    /// (the one asked for, or the one the system chose for port 0).
    public static func service(
        listeningOn address: ListenAddress, registry: PrometheusCollectorRegistry = ProcessMetrics.registry,
        database: MetricsDatabaseRead? = nil, limits: ServerLimits = .defaults, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some Service {
        let router = Router()
        router.addMetrics(registry: registry, database: database)
        router.addHealthCheck()
        return Application(
            router: router, server: limits.server,
            configuration: limits.configuration(address: address, serverName: "darkroom-worker", logger: logger),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? address.port) },
            logger: logger)
    }
}

/// `host:port`, with `[v6]:port` for IPv6.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.host = host
        self.port = port
    }

    public var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
