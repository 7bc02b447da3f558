import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomMetrics
import DarkroomStorage
import Foundation
import Timing

public struct WorkerOptions: Sendable {
    public var databaseURL: String
    /// A direct (never pooled) connection for LISTEN; `databaseURL` when nil. Through PgBouncer
    /// in transaction mode, point `databaseURL` at PgBouncer and this at PostgreSQL itself.
    public var listenURL: String?
    /// Where originals are read and renders published.
    public var storage: any ObjectStorage
    /// Jobs rendered at once, each on its own thread and connection; one per core by default.
    public var concurrency: Int
    /// Exit once no job is runnable, instead of waiting for more.
    public var drain: Bool
    /// For the whole worker: each render is planned against all of it and reserves its price
    /// from it before it allocates (`WorkerMemory`), so the jobs together never use more, and a
    /// job that needs most of it waits for the others and runs alone.
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
    /// The wait before a failed job's next attempt (the database decides whether there is one).
    public var retryBackoff: Backoff
    /// The chance behind every backoff's jitter.
    public var randomUnit: RandomUnit
    /// Apple Photos edits with adjustments darkroom cannot reproduce: their geometry only, with
    /// a warning naming what was left out (`worker --apple-geometry-only`), instead of failing.
    public var appleGeometryOnly = false
    /// Whether renders carry an original's HDR gain map (`worker --hdr keep|drop`).
    public var hdr: HDROutput = .keep
    /// Where renders run: a sandboxed child each (`worker --decoder-sandbox on`, the command's
    /// default), or nil for the worker's own process (with `registry`).
    public var sandbox: DecoderSandbox?
    /// The editors this worker runs.
    public var registry: EditorRegistry
    /// The formats this worker claims (normally `registry.claimableFormats`); nil claims every job.
    public var formats: [ClaimableFormat]?
    /// Identifies this process in `jobs.leased_by` and `darkroom.workers`: host and pid.
    public var workerName: String
    /// The cores renders may use: a job that starts while enough of them are idle gets the JPEG
    /// encoder on a second thread.
    public var cores: Int
    /// Where claims, renders, outcomes, bytes and memory are recorded (swift-metrics' backend by
    /// default; the executable bootstraps it).
    public var metrics: WorkerMetrics

    public init(
        databaseURL: String, listenURL: String? = nil, storage: any ObjectStorage,
        concurrency: Int = WorkerOptions.defaultConcurrency,
        drain: Bool = false,
        memoryBudget: Int = RenderLimits.defaultMemoryBudget, quality: Int = OutputEncoding.defaultQuality,
        lease: Duration = .seconds(60),
        heartbeatInterval: Duration? = nil,
        pollInterval: Duration = .seconds(5), maxDuration: Duration? = nil, shutdownGrace: Duration = .seconds(30),
        retryBackoff: Backoff = .jobRetry, randomUnit: RandomUnit = .system, registry: EditorRegistry = .standard,
        formats: [ClaimableFormat]? = EditorRegistry.standard.claimableFormats,
        workerName: String = WorkerOptions.defaultWorkerName(),
        cores: Int = ProcessInfo.processInfo.activeProcessorCount, metrics: WorkerMetrics = WorkerMetrics()
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
        self.retryBackoff = retryBackoff
        self.randomUnit = randomUnit
        self.registry = registry
        self.formats = formats
        self.workerName = workerName
        self.cores = max(cores, 1)
        self.metrics = metrics
    }

    /// How every job renders; the worker sets `threads` per job when it starts, and its
    /// `WorkerMemory` as the admission.
    public var renderSettings: RenderSettings {
        var settings = RenderSettings(quality: quality, memoryBudget: memoryBudget)
        settings.appleGeometryOnly = appleGeometryOnly
        settings.hdr = hdr
        return settings
    }

    /// One slot per core (at most 64), so a worker started without flags keeps every core busy.
    public static var defaultConcurrency: Int {
        min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 64)
    }

    var identity: WorkerIdentity {
        WorkerIdentity(
            name: workerName, host: ProcessInfo.processInfo.hostName, pid: getpid(), release: DarkroomRelease.version)
    }

    public static func defaultWorkerName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(getpid())"
    }
}
