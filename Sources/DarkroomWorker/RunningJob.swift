import DarkroomDatabase
import Foundation
import Logging

/// A job in hand: its attempt's state machine, which the slot, heartbeat and shutdown threads
/// all feed, one event at a time.
final class RunningJob: @unchecked Sendable {
    let job: ClaimedJob
    /// Threads its render uses, decided when it started.
    let threads: Int
    /// Carries the job's ids, whichever thread logs.
    let logger: Logger
    let startedAt: ContinuousClock.Instant
    private let lock = NSLock()
    private var attempt: JobAttempt

    init(
        _ job: ClaimedJob, attempt configuration: JobAttempt.Configuration, threads: Int, logger: Logger,
        startedAt: ContinuousClock.Instant = .now
    ) {
        self.job = job
        self.threads = threads
        self.startedAt = startedAt
        attempt = JobAttempt(job: job, configuration: configuration)
        var logger = logger
        logger[metadataKey: "job_id"] = "\(job.id)"
        logger[metadataKey: "asset_id"] = "\(job.assetID)"
        self.logger = logger
    }

    /// Feeds one event; returns what the calling thread must do.
    func handle(_ event: JobAttempt.Event, now: ContinuousClock.Instant = .now) -> [JobAttempt.Action] {
        lock.withLock { attempt.handle(event, now: now) }
    }

    var isFinished: Bool { lock.withLock { attempt.isFinished } }

    /// Read between strips: a render nobody will record stops early.
    var renderIsWanted: Bool { lock.withLock { attempt.renderIsWanted } }
}
