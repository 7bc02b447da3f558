import DarkroomAdjustments
import DarkroomQueue
import DarkroomStorage
import Foundation

public struct WorkerOptions: Sendable {
    public var databaseURL: String
    /// A direct (never pooled) connection for LISTEN; `databaseURL` when nil. Through PgBouncer
    /// in transaction mode, point `databaseURL` at PgBouncer and this at PostgreSQL itself.
    public var listenURL: String?
    /// Where originals are read and renders published.
    public var storage: any ObjectStorage
    /// Jobs rendered at once, each on its own thread and connection.
    public var concurrency: Int
    /// Exit once no job is runnable, instead of waiting for more.
    public var drain: Bool
    /// For the whole worker; each concurrent job gets an equal share.
    public var memoryBudget: Int
    public var quality: Int
    /// How long a claimed job is ours without a heartbeat. A worker that dies loses its jobs
    /// after this long; they go back to the queue.
    public var lease: Duration
    /// How often the heartbeat extends the leases (and notices cancelled jobs).
    public var heartbeatInterval: Duration
    /// How long an idle worker waits for a NOTIFY before polling anyway.
    public var pollInterval: Duration
    /// Stop claiming new jobs after this long (running ones finish).
    public var maxDuration: Duration?
    /// On SIGTERM/SIGINT: how long running jobs may take to finish before they are released.
    public var shutdownGrace: Duration
    public var retryPolicy: RetryPolicy
    /// The editors this worker runs.
    public var registry: EditorRegistry
    /// The formats this worker claims (normally `ClaimableFormats.from(registry)`); nil claims every job.
    public var formats: [ClaimableFormat]?
    /// Identifies this process in `jobs.leased_by` and `darkroom.workers`: host and pid.
    public var workerName: String

    public init(
        databaseURL: String, listenURL: String? = nil, storage: any ObjectStorage, concurrency: Int = 1, drain: Bool = false,
        memoryBudget: Int = 256 << 20, quality: Int = 92, lease: Duration = .seconds(60), heartbeatInterval: Duration? = nil,
        pollInterval: Duration = .seconds(5), maxDuration: Duration? = nil, shutdownGrace: Duration = .seconds(30),
        retryPolicy: RetryPolicy = .standard, registry: EditorRegistry = .standard,
        formats: [ClaimableFormat]? = ClaimableFormats.standard, workerName: String = WorkerOptions.defaultWorkerName()
    ) {
        self.databaseURL = databaseURL
        self.listenURL = listenURL
        self.storage = storage
        self.concurrency = concurrency
        self.drain = drain
        self.memoryBudget = memoryBudget
        self.quality = quality
        self.lease = lease
        // A third of the lease: two heartbeats may be lost before the lease runs out.
        self.heartbeatInterval = heartbeatInterval ?? lease / 3
        self.pollInterval = pollInterval
        self.maxDuration = maxDuration
        self.shutdownGrace = shutdownGrace
        self.retryPolicy = retryPolicy
        self.registry = registry
        self.formats = formats
        self.workerName = workerName
    }

    public var renderSettings: RenderSettings {
        RenderSettings(quality: quality, memoryBudgetPerJob: memoryBudget / max(concurrency, 1))
    }

    var identity: WorkerIdentity {
        WorkerIdentity(name: workerName, host: ProcessInfo.processInfo.hostName, pid: getpid())
    }

    public static func defaultWorkerName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(getpid())"
    }
}

/// What a worker did, and the exit code a scheduler should see.
public struct WorkerSummary: Sendable, CustomStringConvertible {
    public var succeeded = 0
    /// Jobs that ended `failed` in this run.
    public var failed = 0
    /// Attempts that failed and were put back in the queue for a later retry.
    public var retried = 0
    /// Results not recorded because the lease had expired or gone to another worker.
    public var leaseLost = 0
    /// Jobs an operator cancelled while this worker ran them; nothing was recorded.
    public var cancelled = 0
    /// Jobs given back to the queue unfinished at shutdown (their attempt not counted).
    public var released = 0
    public var elapsed: Duration = .zero

    public init() {}

    public var processed: Int { succeeded + failed + retried + leaseLost + cancelled + released }

    /// 0 when every job it ran succeeded (or was cancelled, or released at shutdown), 3 when
    /// some did not.
    public var exitCode: Int32 { failed + retried + leaseLost == 0 ? 0 : 3 }

    public var description: String {
        let seconds = elapsed.seconds
        let rate = seconds > 0 ? Double(succeeded + failed) / seconds : 0
        return "processed \(processed): \(succeeded) succeeded, \(failed) failed, \(retried) to retry"
            + (leaseLost > 0 ? ", \(leaseLost) lost their lease" : "")
            + (cancelled > 0 ? ", \(cancelled) cancelled" : "")
            + (released > 0 ? ", \(released) released at shutdown" : "")
            + String(format: " in %.1fs (%.2f jobs/s)", seconds, rate)
    }
}
