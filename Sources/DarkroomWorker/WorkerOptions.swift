import DarkroomQueue
import Foundation

public struct WorkerOptions: Sendable {
    public var databaseURL: String
    public var storage: StorageRoot
    /// Jobs rendered at once, each on its own thread and connection.
    public var concurrency: Int
    /// Exit once no job is runnable, instead of waiting for more.
    public var drain: Bool
    /// For the whole worker; each concurrent job gets an equal share.
    public var memoryBudget: Int
    public var quality: Int
    public var lease: Duration
    /// How long an idle worker waits for a NOTIFY before polling anyway.
    public var pollInterval: Duration
    /// Stop claiming new jobs after this long (running ones finish).
    public var maxDuration: Duration?
    public var retryPolicy: RetryPolicy
    /// Identifies this process in `jobs.leased_by`: host and pid.
    public var workerName: String

    public init(
        databaseURL: String, storage: StorageRoot, concurrency: Int = 1, drain: Bool = false,
        memoryBudget: Int = 256 << 20, quality: Int = 92, lease: Duration = .seconds(60),
        pollInterval: Duration = .seconds(5), maxDuration: Duration? = nil, retryPolicy: RetryPolicy = .standard,
        workerName: String = WorkerOptions.defaultWorkerName()
    ) {
        self.databaseURL = databaseURL
        self.storage = storage
        self.concurrency = concurrency
        self.drain = drain
        self.memoryBudget = memoryBudget
        self.quality = quality
        self.lease = lease
        self.pollInterval = pollInterval
        self.maxDuration = maxDuration
        self.retryPolicy = retryPolicy
        self.workerName = workerName
    }

    public var renderSettings: RenderSettings {
        // Fewer jobs than cores: give each render a second thread for its JPEG encoder.
        RenderSettings(quality: quality, memoryBudgetPerJob: memoryBudget / max(concurrency, 1),
                       threads: concurrency < ProcessInfo.processInfo.activeProcessorCount ? 2 : 1)
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
    /// Results not recorded because the lease had gone to another worker.
    public var leaseLost = 0
    public var elapsed: Duration = .zero

    public init() {}

    public var processed: Int { succeeded + failed + retried + leaseLost }

    /// 0 when every job it ran succeeded, 3 when some did not.
    public var exitCode: Int32 { failed + retried + leaseLost == 0 ? 0 : 3 }

    public var description: String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(processed) / seconds : 0
        return "processed \(processed): \(succeeded) succeeded, \(failed) failed, \(retried) to retry"
            + (leaseLost > 0 ? ", \(leaseLost) lost their lease" : "")
            + String(format: " in %.1fs (%.2f jobs/s)", seconds, rate)
    }
}
