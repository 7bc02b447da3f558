import DarkroomDatabase
import Foundation
import Logging
import Synchronization

/// A job in hand: its attempt's state machine, which the slot, heartbeat and shutdown threads
/// all feed, one event at a time.
final class RunningJob: Sendable {
    let job: ClaimedJob
    /// Threads its render uses, decided when it started.
    let threads: Int
    /// Carries the job's ids, whichever thread logs.
    let logger: Logger
    let startedAt: ContinuousClock.Instant
    private let attempt: Mutex<JobAttempt>

    init(
        _ job: ClaimedJob, attempt configuration: JobAttempt.Configuration, threads: Int, logger: Logger,
        startedAt: ContinuousClock.Instant = .now
    ) {
        self.job = job
        self.threads = threads
        self.startedAt = startedAt
        attempt = Mutex(JobAttempt(job: job, configuration: configuration))
        var logger = logger
        logger[metadataKey: "job_id"] = "\(job.id)"
        logger[metadataKey: "asset_id"] = "\(job.assetID)"
        self.logger = logger
    }

    /// Feeds one event; returns what the calling thread must do.
    func handle(_ event: JobAttempt.Event, now: ContinuousClock.Instant = .now) -> [JobAttempt.Action] {
        attempt.withLock { $0.handle(event, now: now) }
    }

    var isFinished: Bool { attempt.withLock { $0.isFinished } }

    /// Read between strips: a render nobody will record stops early.
    var renderIsWanted: Bool { attempt.withLock { $0.renderIsWanted } }
}
