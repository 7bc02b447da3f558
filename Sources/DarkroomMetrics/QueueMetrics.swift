import DarkroomDatabase
import Foundation
import Logging
import Prometheus
import Timing

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

    /// Reads every view on `connection` (a viewer's rights are enough), through the same
    /// `JobQueue` reads `darkroom status` and the dashboard make.
    public static func read(from connection: DatabaseConnection, timeout: Duration = viewTimeout) -> QueueMetrics {
        var metrics = QueueMetrics()
        let reader = ViewReader(
            queue: JobQueue(connection, logger: Logger(label: "darkroom.metrics")), timeout: timeout)
        metrics.jobsByState = reader.read("queue_summary", into: &metrics.failures) { queue in
            Dictionary(uniqueKeysWithValues: try queue.jobCounts().map { ($0.key.rawValue, $0.value) })
        }
        metrics.oldestQueuedAge = reader.read("oldest_queued", into: &metrics.failures) { queue in
            try queue.oldestQueued().map(\.age.seconds) ?? 0
        }
        metrics.batches = reader.read("batch_summary", into: &metrics.failures) { queue in
            try queue.activeBatches().map { batch in
                Batch(
                    name: batch.batch,
                    jobsByState: [
                        "queued": batch.queued, "running": batch.running, "succeeded": batch.succeeded,
                        "failed": batch.failed, "cancelled": batch.cancelled,
                    ])
            }
        }
        metrics.workers = reader.read("worker_status", into: &metrics.failures) { queue in
            try queue.workers().map { worker in
                KnownWorker(name: worker.name, isAlive: worker.isAlive, secondsSinceHeartbeat: worker.silence.seconds)
            }
        }
        metrics.waitingForEditor = reader.read("waiting_for_editor", into: &metrics.failures) { queue in
            try queue.waitingForEditor().map { waiting in
                Waiting(
                    kind: waiting.kind, formatIdentifier: waiting.formatIdentifier ?? "",
                    formatVersion: waiting.formatVersion ?? "", jobs: waiting.jobs)
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

/// Reads one view in a transaction of its own whose `statement_timeout` bounds it; a failure
/// is noted by view name instead of thrown, so one slow view does not cost the scrape the others.
private struct ViewReader {
    let queue: JobQueue
    let timeout: Duration

    func read<T>(_ view: String, into failures: inout [String: String], _ body: (JobQueue) throws -> T) -> T? {
        do {
            return try queue.withStatementTimeout(timeout) { try body(queue) }
        } catch {
            failures[view] = "\(error)"
            return nil
        }
    }
}
