import DarkroomDatabase
import DarkroomMetrics
import Hummingbird
import Logging
import Prometheus

/// Runs a read on a database connection of the caller's (`serve`'s pool), off the event loop.
public typealias MetricsDatabaseRead =
    @Sendable (_ read: @escaping @Sendable (DatabaseConnection) -> String) async throws -> String

extension RouterMethods {
    /// `GET path`: this process's metrics (`registry`, where swift-metrics records) in Prometheus
    /// text format, followed by the queue's gauges read through `database` at each scrape when
    /// given. Add it before any sign-in middleware: Prometheus has no session. When the database
    /// cannot be reached the answer is still 200, with `darkroom_queue_view_up` 0 for every view.
    @discardableResult
    public func addMetrics(
        _ path: RouterPath = "/metrics", registry: PrometheusCollectorRegistry = ProcessMetrics.registry,
        database: MetricsDatabaseRead? = nil
    ) -> Self {
        get(path) { _, context in
            var text = registry.emitToString()
            if let database {
                do {
                    text += try await database { QueueMetrics.read(from: $0).exposition }
                } catch {
                    context.logger.warning("metrics: cannot read the queue", metadata: ["error": "\(error)"])
                    text += QueueMetrics.unreachable(error).exposition
                }
            }
            return Response(
                status: .ok, headers: [.contentType: PrometheusText.contentType, .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }

    /// `GET path`: 200 "ok" while the process serves requests (a liveness probe; it asks nothing
    /// of the database, so a database outage does not restart workers that are waiting it out).
    @discardableResult
    public func addHealthCheck(_ path: RouterPath = "/healthz") -> Self {
        get(path) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
    }
}
