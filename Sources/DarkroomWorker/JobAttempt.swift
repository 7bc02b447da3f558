import DarkroomDatabase
import Timing

/// One claimed job, from its claim to its one outcome, as a state machine without I/O.
///
/// The worker's threads feed it what happened (the render ended, a heartbeat answered, a write
/// committed, was refused or broke, time passed) and do what it answers (render, write,
/// reconnect, finish). Every decision the worker makes about a job is here, so each is a unit
/// test: time comes in with every event (`now`), chance through `Configuration.randomUnit`.
/// Whether a failure is retried is the database's to decide (`darkroom.attempt_fails_job`);
/// the attempt only picks the wait before a retry.
///
///     new ─claimed─▶ rendering ─rendered─────────────▶ writing(complete) ─completed───────▶ finished
///                      │  ├─renderFailed───────────────▶ writing(fail) ──────failureRecorded─▶ finished
///                      │  └─tick past the grace period─▶ writing(release, shutdown)
///                      └─lease lost (heartbeat, or no heartbeat in time), then the render ends ─▶ finished(discarded)
///     writing(complete) ─assetChanged─▶ writing(fail)        writing ─writeRefused─▶ finished(discarded)
///     writing, checkingCommit ─connectionBroke─▶ waitingToRetry ─readyToRetry─▶ writing again,
///         or checkingCommit first for a completion (it may have committed before the break)
///
/// Events that do not apply to the current state are ignored: threads report late (a render
/// that stops after its job was released at shutdown, a heartbeat about a job being written).
struct JobAttempt: Sendable {
    struct Configuration: Sendable {
        /// How long a claim or heartbeat keeps the job ours.
        var lease: Duration
        /// The wait before the next attempt, should the database retry a failed one.
        var retryBackoff: Backoff
        /// The chance behind each wait's jitter: retries, reconnects.
        var randomUnit: RandomUnit = .system
    }

    enum Event: Sendable {
        /// The claim that leased the job was sent at `now`; the lease runs from then.
        case claimed
        case rendered(JobResult)
        case renderFailed(JobFailure)
        /// A heartbeat sent at `now` answered this about the job.
        case heartbeat(LeaseCheck)
        /// Time passed: the lease and the shutdown deadline are checked against `now`.
        case tick
        /// The worker stopped claiming; a job still rendering at `releaseAt` is released. Only
        /// the first deadline counts, so every thread may pass it on.
        case shutdownRequested(releaseAt: ContinuousClock.Instant)
        /// `complete` committed; the asset's current adjustment afterwards.
        case completed(currentAdjustmentID: Int64?)
        /// `fail` committed: the job's new state, `queued` (retried) or `failed`.
        case failureRecorded(JobState)
        case released
        /// The write was refused because the lease is gone; nothing was written.
        case writeRefused(LeaseLoss)
        /// `complete` was refused because the asset's current adjustment moved on.
        case assetChanged(QueueError)
        /// The connection broke during a write: whether it committed is unknown.
        case connectionBroke(any Error & Sendable)
        /// The reconnect backoff has passed.
        case readyToRetry
        /// The check after a broken `complete` found it committed: the adjustment it recorded.
        case completionCommitted(adjustmentID: Int64?)
        case completionNotCommitted
        /// A write failed for any other reason.
        case writeFailed(any Error & Sendable)
    }

    enum Action: Sendable, Equatable {
        /// Read the asset, decide whether this worker can render it, and render.
        case render
        /// The render in progress is wasted: its `isCancelled` now answers true.
        case stopRendering(StopReason)
        case complete(JobResult)
        /// Record the failure, with the wait before a retry should the database retry it.
        case fail(JobFailure, retryAfter: Duration)
        case release(ReleaseReason, delay: Duration)
        /// After a broken `complete`: ask whether it committed under this lease.
        case checkCommitted
        /// Drop the connection, wait, then report `readyToRetry`.
        case reconnect(after: Duration)
        /// The attempt is over; count it. Handed out exactly once.
        case finish(JobOutcome)
    }

    enum StopReason: Sendable, Equatable {
        case leaseLost(LeaseLoss)
        case releasedAtShutdown
    }

    /// A report of the job's outcome, written in one transaction.
    enum Write: Sendable, Equatable {
        case complete(JobResult)
        case fail(JobFailure, retryAfter: Duration)
        case release(ReleaseReason, delay: Duration)

        var action: Action {
            switch self {
            case .complete(let result): .complete(result)
            case .fail(let failure, let delay): .fail(failure, retryAfter: delay)
            case .release(let reason, let delay): .release(reason, delay: delay)
            }
        }
    }

    enum State: Sendable, Equatable {
        case new
        case rendering
        /// `retried`: an earlier try of this write broke, so it may have committed.
        case writing(Write, retried: Bool)
        case waitingToRetry(Write)
        case checkingCommit(JobResult)
        case finished(JobOutcome)
    }

    let job: ClaimedJob
    let configuration: Configuration
    private(set) var state = State.new
    /// Why the lease is gone, noticed while rendering; the render's result is then discarded.
    private(set) var loss: LeaseLoss?
    /// When the lease runs out unless a heartbeat extends it, as far as this worker knows.
    private(set) var leaseDeadline: ContinuousClock.Instant?
    /// When a job still rendering is released, once the worker is shutting down.
    private(set) var releaseAt: ContinuousClock.Instant?
    private var reconnect = BackoffWaits(.reconnect)

    init(job: ClaimedJob, configuration: Configuration) {
        self.job = job
        self.configuration = configuration
    }

    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// False once nobody will record the render: the lease is gone or the job was released.
    var renderIsWanted: Bool { state == .rendering && loss == nil }

    /// Takes in what happened at `now` and says what to do next, in order.
    mutating func handle(_ event: Event, now: ContinuousClock.Instant) -> [Action] {
        switch (state, event) {
        case (.new, .claimed):
            leaseDeadline = now + configuration.lease
            state = .rendering
            return [.render]

        case (_, .shutdownRequested(let deadline)):
            if releaseAt == nil { releaseAt = deadline }
            return checkDeadlines(now)
        case (_, .tick):
            return checkDeadlines(now)
        case (_, .heartbeat(let check)):
            guard let lost = check.loss else {
                // Heartbeats run concurrently; a late answer never shortens the lease.
                leaseDeadline = max(leaseDeadline ?? now, now + configuration.lease)
                return []
            }
            // While a write is in flight, the write itself checks the lease (and a heartbeat
            // may be seeing the write's own commit).
            guard state == .rendering else { return [] }
            return noticeLoss(lost)

        case (.rendering, .rendered(let result)):
            if let loss { return finish(.discarded(loss)) }
            return startWrite(.complete(result))
        case (.rendering, .renderFailed(let failure)):
            if let loss { return finish(.discarded(loss)) }
            return startWrite(.fail(failure, retryAfter: retryDelay()))

        case (.writing(.complete(let result), _), .completed(let current)):
            return finish(.succeeded(result, .recorded(currentAdjustmentID: current)))
        case (.writing(.complete, _), .assetChanged(let error)):
            reconnect.reset()
            let failure = JobFailure.transient(code: .assetChanged, message: error.description, cause: error)
            return startWrite(.fail(failure, retryAfter: retryDelay()))
        case (.writing(.fail(let failure, let delay), _), .failureRecorded(let next)):
            return finish(next == .failed ? .failed(failure) : .retried(failure, after: delay))
        case (.writing(.release(let reason, _), _), .released):
            return finish(.released(reason))
        case (.writing(let write, let retried), .writeRefused(let lost)):
            return finish(retried ? outcome(ofRetried: write, refusedWith: lost) : .discarded(lost))

        case (.writing(let write, _), .connectionBroke):
            return retryLater(write, now: now)
        case (.checkingCommit(let result), .connectionBroke):
            return retryLater(.complete(result), now: now)
        case (.waitingToRetry(.complete(let result)), .readyToRetry):
            state = .checkingCommit(result)
            return [.checkCommitted]
        case (.waitingToRetry(let write), .readyToRetry):
            state = .writing(write, retried: true)
            return [write.action]
        case (.checkingCommit(let result), .completionCommitted(let adjustmentID)):
            return finish(.succeeded(result, .foundCommitted(adjustmentID: adjustmentID)))
        case (.checkingCommit(let result), .completionNotCommitted):
            reconnect.reset()
            state = .writing(.complete(result), retried: true)
            return [.complete(result)]
        case (.writing, .writeFailed(let error)), (.checkingCommit, .writeFailed(let error)):
            return finish(.abandoned(.writeFailed(error)))

        default:
            return []
        }
    }

    // MARK: Decisions

    /// The wait before a retry, after this job's attempts so far.
    private func retryDelay() -> Duration {
        configuration.retryBackoff.delay(afterFailures: job.attempts, randomUnit: configuration.randomUnit.next())
    }

    /// A write retried after a break and refused: when the job is where a failure report puts
    /// it (failed, or queued again), the first try committed (or a rescue did the same), so the
    /// write is done. A completion never gets here undecided: `checkCommitted` asks by its
    /// lease token.
    private func outcome(ofRetried write: Write, refusedWith lost: LeaseLoss) -> JobOutcome {
        switch (write, lost) {
        case (.fail(let failure, _), .finished(.failed)): .failed(failure)
        case (.fail(let failure, let delay), .requeued): .retried(failure, after: delay)
        default: .discarded(lost)
        }
    }

    private mutating func checkDeadlines(_ now: ContinuousClock.Instant) -> [Action] {
        let shutdownDue = releaseAt.map { now >= $0 } ?? false
        switch state {
        case .rendering where loss == nil:
            // A lease already gone has nothing to release.
            if let leaseDeadline, now >= leaseDeadline { return noticeLoss(.expired(at: nil)) }
            if shutdownDue {
                return [.stopRendering(.releasedAtShutdown)] + startWrite(.release(.shutdown, delay: .zero))
            }
            return []
        case .waitingToRetry where shutdownDue:
            return finish(.abandoned(.databaseAwayAtShutdown))
        default:
            return []
        }
    }

    private mutating func noticeLoss(_ lost: LeaseLoss) -> [Action] {
        guard loss == nil else { return [] }
        loss = lost
        return [.stopRendering(.leaseLost(lost))]
    }

    private mutating func startWrite(_ write: Write) -> [Action] {
        state = .writing(write, retried: false)
        return [write.action]
    }

    /// After a break: wait and try again, unless the worker is past its shutdown deadline,
    /// when the lease is left to run out (the queue then rescues the job).
    private mutating func retryLater(_ write: Write, now: ContinuousClock.Instant) -> [Action] {
        if let releaseAt, now >= releaseAt { return finish(.abandoned(.databaseAwayAtShutdown)) }
        state = .waitingToRetry(write)
        return [.reconnect(after: reconnect.next(randomUnit: configuration.randomUnit.next()))]
    }

    private mutating func finish(_ outcome: JobOutcome) -> [Action] {
        state = .finished(outcome)
        return [.finish(outcome)]
    }
}
