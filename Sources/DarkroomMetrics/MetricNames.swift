/// One metric darkroom exposes: its Prometheus name, what it means (the `# HELP` line), its
/// label names and, for a histogram, its buckets. Every name lives here, so the worker, the
/// queue collector, the docs and the tests agree on them.
public struct MetricDefinition: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case counter, gauge, histogram
    }

    public let name: String
    public let kind: Kind
    public let help: String
    public let labels: [String]
    /// Upper bounds of a histogram's buckets (seconds for durations); empty otherwise.
    public let buckets: [Double]

    init(_ name: String, _ kind: Kind, labels: [String] = [], buckets: [Double] = [], help: String) {
        self.name = name
        self.kind = kind
        self.help = help
        self.labels = labels
        self.buckets = buckets
    }
}

/// darkroom's metrics. Worker metrics are recorded by each worker process (`worker
/// --metrics-listen`); queue metrics are read from the views at each scrape of `serve`.
public enum DarkroomMetric {
    // MARK: A worker's own (recorded through swift-metrics by `WorkerMetrics`)

    public static let claimDuration = MetricDefinition(
        "darkroom_worker_claim_duration_seconds", .histogram, labels: ["result"],
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        help: "Time one claim query took; result is claimed (a job came back) or empty.")
    public static let renderDuration = MetricDefinition(
        "darkroom_worker_render_duration_seconds", .histogram, labels: ["kind", "result"],
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
        help: "Time a job's render took (reading its asset and layers, decoding, encoding, publishing); "
            + "kind is edit, revert, revert_last, rerender or renditions, result rendered or failed.")
    public static let jobs = MetricDefinition(
        "darkroom_worker_jobs_total", .counter, labels: ["outcome", "code"],
        help: "Jobs this worker finished, by outcome (succeeded, failed, retried, released, discarded, abandoned) "
            + "and code (the failure code for failed and retried, the lease loss for discarded, empty otherwise).")
    public static let bytesRead = MetricDefinition(
        "darkroom_worker_read_bytes_total", .counter, labels: ["object"],
        help: "Bytes renders read from the storage; object is original or render (the layer an edit goes on).")
    public static let bytesWritten = MetricDefinition(
        "darkroom_worker_written_bytes_total", .counter, labels: ["object"],
        help:
            "Bytes renders published to the storage; object is render (full size) or renditions (the display copy and the others)."
    )
    public static let renderMemoryPeak = MetricDefinition(
        "darkroom_worker_render_memory_peak_bytes", .gauge,
        help: "The largest memory any render of this worker planned for its buffers (libjpeg's included); "
            + "the planner keeps each render within darkroom_worker_render_memory_budget_bytes.")
    public static let renderMemoryBudget = MetricDefinition(
        "darkroom_worker_render_memory_budget_bytes", .gauge,
        help: "The budget each render is planned against: the worker's whole --memory-budget, which its jobs share.")
    public static let renderMemoryUsed = MetricDefinition(
        "darkroom_worker_render_memory_budget_ratio", .histogram,
        buckets: [0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1],
        help: "Per render: its planned peak memory divided by its budget (at most 1).")
    public static let decoderResidentPeak = MetricDefinition(
        "darkroom_worker_decoder_resident_peak_bytes", .gauge,
        help: "The largest peak resident set of any decoding child of this worker: its render's memory, plus the "
            + "pages it shares with the zygote and the code it ran (about 40 MB on a release build).")
    public static let jobsInHand = MetricDefinition(
        "darkroom_worker_jobs_in_hand", .gauge,
        help: "Jobs this worker holds now (claimed and not yet finished).")
    public static let slots = MetricDefinition(
        "darkroom_worker_slots", .gauge,
        help: "Jobs this worker renders at once at most (--concurrency).")
    public static let memoryReserved = MetricDefinition(
        "darkroom_worker_memory_reserved_bytes", .gauge,
        help: "Bytes of --memory-budget the worker's running renders have reserved (their planned prices).")
    public static let jobsWaitingForMemory = MetricDefinition(
        "darkroom_worker_memory_waiting_jobs", .gauge,
        help:
            "Jobs waiting until their planned memory is free in the worker's --memory-budget, first come first served.")

    // MARK: The queue's (read from the views at each scrape by `QueueMetrics`)

    public static let queueJobs = MetricDefinition(
        "darkroom_queue_jobs", .gauge, labels: ["state"],
        help: "Jobs by state (darkroom.queue_summary).")
    public static let oldestQueuedAge = MetricDefinition(
        "darkroom_queue_oldest_queued_age_seconds", .gauge,
        help:
            "How long the queued job that has waited longest has been runnable; 0 when none is (darkroom.oldest_queued)."
    )
    public static let batchJobs = MetricDefinition(
        "darkroom_batch_jobs", .gauge, labels: ["batch", "state"],
        help: "Jobs of each batch with work left, by state (darkroom.batch_summary).")
    public static let workers = MetricDefinition(
        "darkroom_fleet_workers", .gauge, labels: ["status"],
        help: "Workers known to the queue: alive (heard from within two leases) or silent (darkroom.worker_status).")
    public static let workerHeartbeatAge = MetricDefinition(
        "darkroom_fleet_heartbeat_age_seconds", .gauge, labels: ["worker"],
        help: "Seconds since each known worker's last heartbeat (darkroom.worker_status).")
    public static let waitingForEditor = MetricDefinition(
        "darkroom_queue_waiting_for_editor_jobs", .gauge, labels: ["kind", "format_identifier", "format_version"],
        help: "Queued jobs no live worker can run, by what they need (darkroom.waiting_for_editor).")
    public static let viewUp = MetricDefinition(
        "darkroom_queue_view_up", .gauge, labels: ["view"],
        help: "1 when this scrape read the view, 0 when it could not (database unreachable, or the read timed out).")

    public static let worker: [MetricDefinition] = [
        claimDuration, renderDuration, jobs, bytesRead, bytesWritten, renderMemoryPeak, renderMemoryBudget,
        renderMemoryUsed, decoderResidentPeak,
        jobsInHand, slots, memoryReserved, jobsWaitingForMemory,
    ]
    public static let queue: [MetricDefinition] = [
        queueJobs, oldestQueuedAge, batchJobs, workers, workerHeartbeatAge, waitingForEditor, viewUp,
    ]
    public static let all = worker + queue

    /// By name, for the factory that turns swift-metrics labels into Prometheus families.
    public static let byName: [String: MetricDefinition] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}
