import Foundation
import LibPQ
import Prometheus

/// The queue as gauges, read at each scrape from the views `darkroom status` and the dashboard
/// read: one query per view, each in its own transaction under `viewTimeout`, so a scrape takes
/// at most about five times that however large the queue. A view that could not be read is
/// left out and reported by `darkroom_queue_view_up{view} 0`; the others still are.
public struct QueueMetrics: Sendable {
    /// How long one view's read may take (`statement_timeout`). Five views stay within
    /// Prometheus' default 10 s scrape timeout.
    public static let viewTimeout: Duration = .seconds(2)

    public struct Batch: Sendable, Hashable {
        public var name: String
        public var jobsByState: [String: Int]
    }

    public struct KnownWorker: Sendable, Hashable {
        public var name: String
        public var isAlive: Bool
        public var secondsSinceHeartbeat: Double
    }

    public struct Waiting: Sendable, Hashable {
        public var kind: String
        public var formatIdentifier: String
        public var formatVersion: String
        public var jobs: Int
    }

    /// Each is nil when its view could not be read.
    public var jobsByState: [String: Int]?
    public var oldestQueuedAge: Double?
    public var batches: [Batch]?
    public var workers: [KnownWorker]?
    public var waitingForEditor: [Waiting]?
    /// Why each unreadable view could not be read, by view name.
    public var failures: [String: String] = [:]

    public static let views = [
        "queue_summary", "oldest_queued", "batch_summary", "worker_status", "waiting_for_editor",
    ]

    /// Reads every view on `connection` (a viewer's rights are enough).
    public static func read(from connection: PostgresConnection, timeout: Duration = viewTimeout) -> QueueMetrics {
        var metrics = QueueMetrics()
        let reader = ViewReader(connection: connection, timeout: timeout)
        metrics.jobsByState = reader.read("queue_summary", into: &metrics.failures) {
            Dictionary(
                uniqueKeysWithValues: try connection.query("SELECT state, count FROM darkroom.queue_summary").map {
                    (try $0["state"].decode(String.self), try $0["count"].decode(Int.self))
                })
        }
        metrics.oldestQueuedAge = reader.read("oldest_queued", into: &metrics.failures) {
            try connection.query("SELECT age_seconds::double precision AS age FROM darkroom.oldest_queued").first
                .map { try $0["age"].decode(Double.self) } ?? 0
        }
        metrics.batches = reader.read("batch_summary", into: &metrics.failures) {
            try connection.query(
                """
                SELECT batch, queued, running, succeeded, failed, cancelled FROM darkroom.batch_summary
                 WHERE queued + running > 0 ORDER BY batch
                """
            ).map { row in
                Batch(
                    name: try row["batch"].decode(String.self),
                    jobsByState: Dictionary(
                        uniqueKeysWithValues: try [
                            "queued", "running", "succeeded", "failed", "cancelled",
                        ].map { ($0, try row[$0].decode(Int.self)) }))
            }
        }
        metrics.workers = reader.read("worker_status", into: &metrics.failures) {
            try connection.query(
                """
                SELECT name, alive, greatest(extract(epoch FROM now() - last_seen_at), 0)::double precision AS silent_seconds
                  FROM darkroom.worker_status
                """
            ).map { row in
                KnownWorker(
                    name: try row["name"].decode(String.self), isAlive: try row["alive"].decode(Bool.self),
                    secondsSinceHeartbeat: try row["silent_seconds"].decode(Double.self))
            }
        }
        metrics.waitingForEditor = reader.read("waiting_for_editor", into: &metrics.failures) {
            try connection.query(
                "SELECT kind, format_identifier, format_version, jobs FROM darkroom.waiting_for_editor"
            ).map { row in
                Waiting(
                    kind: try row["kind"].decode(String.self),
                    formatIdentifier: try row["format_identifier"].decode(String?.self) ?? "",
                    formatVersion: try row["format_version"].decode(String?.self) ?? "",
                    jobs: try row["jobs"].decode(Int.self))
            }
        }
        return metrics
    }

    /// No view could be read: the database is unreachable.
    public static func unreachable(_ error: any Error) -> QueueMetrics {
        var metrics = QueueMetrics()
        for view in views { metrics.failures[view] = "\(error)" }
        return metrics
    }

    /// The gauges in Prometheus text format, from a registry of their own: a batch or worker
    /// that is gone leaves no series behind.
    public var exposition: String {
        let registry = PrometheusCollectorRegistry()
        func set(_ metric: MetricDefinition, _ labels: [String] = [], to value: Double) {
            registry.makeGauge(
                descriptor: MetricNameDescriptor(metricName: metric.name, unitName: "", helpText: metric.help),
                labels: Array(zip(metric.labels, labels))
            ).set(value)
        }
        for (state, count) in (jobsByState ?? [:]).sorted(by: { $0.key < $1.key }) {
            set(DarkroomMetric.queueJobs, [state], to: Double(count))
        }
        if let oldestQueuedAge { set(DarkroomMetric.oldestQueuedAge, to: oldestQueuedAge) }
        for batch in batches ?? [] {
            for (state, count) in batch.jobsByState {
                set(DarkroomMetric.batchJobs, [batch.name, state], to: Double(count))
            }
        }
        if let workers {
            set(DarkroomMetric.workers, ["alive"], to: Double(workers.count { $0.isAlive }))
            set(DarkroomMetric.workers, ["silent"], to: Double(workers.count { !$0.isAlive }))
            for worker in workers {
                set(DarkroomMetric.workerHeartbeatAge, [worker.name], to: worker.secondsSinceHeartbeat)
            }
        }
        for waiting in waitingForEditor ?? [] {
            set(
                DarkroomMetric.waitingForEditor, [waiting.kind, waiting.formatIdentifier, waiting.formatVersion],
                to: Double(waiting.jobs))
        }
        for view in Self.views { set(DarkroomMetric.viewUp, [view], to: failures[view] == nil ? 1 : 0) }
        return registry.emitToString()
    }
}

/// Reads one view inside a transaction whose `statement_timeout` bounds it; a failure is noted
/// by view name instead of thrown, so one slow view does not cost the scrape the others.
private struct ViewReader {
    let connection: PostgresConnection
    let timeout: Duration

    func read<T>(_ view: String, into failures: inout [String: String], _ body: () throws -> T) -> T? {
        do {
            let milliseconds = max(
                Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000), 1)
            return try connection.withTransaction {
                // SET LOCAL: the limit ends with the transaction, whatever happens in it.
                try connection.execute("SET LOCAL statement_timeout = \(milliseconds)")
                return try body()
            }
        } catch {
            failures[view] = "\(error)"
            return nil
        }
    }
}
