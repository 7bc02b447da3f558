import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing
import Timing

@testable import DarkroomWorker

/// Drives one `JobAttempt` with a clock the test moves by hand.
struct AttemptDriver {
    static let lease = Duration.seconds(60)
    /// Jitter 0.5, so the chance the driver fixes shows in the delays.
    static let backoff = Backoff(first: .seconds(10), limit: .seconds(600), jitter: 0.5)

    var attempt: JobAttempt
    let start = ContinuousClock.now
    var now: ContinuousClock.Instant

    init(attempts: Int = 1, maxAttempts: Int = 5, randomUnit: Double = 0.5) {
        let job = ClaimedJob(id: 7, assetID: 3, work: .revert, attempts: attempts, maxAttempts: maxAttempts)
        attempt = JobAttempt(
            job: job,
            configuration: .init(lease: Self.lease, retryBackoff: Self.backoff, randomUnit: .fixed(randomUnit)))
        now = start
    }

    /// Feeds `event` at `at` after the start (or now, when nil) and returns the actions.
    mutating func send(_ event: JobAttempt.Event, at offset: Duration? = nil) -> [JobAttempt.Action] {
        if let offset { now = start + offset }
        return attempt.handle(event, now: now)
    }

    /// Claimed and rendering.
    static func rendering(attempts: Int = 1, maxAttempts: Int = 5, randomUnit: Double = 0.5) -> AttemptDriver {
        var driver = AttemptDriver(attempts: attempts, maxAttempts: maxAttempts, randomUnit: randomUnit)
        _ = driver.send(.claimed)
        return driver
    }

    /// Rendered, and the completion is being written.
    static func completing() -> AttemptDriver {
        var driver = rendering()
        _ = driver.send(.rendered(result))
        return driver
    }
}

let result = JobResult(.original(outcome: "reverted to the original"), expectedCurrent: .adjustment(12))
let transient = JobFailure.transient(code: .storageUnavailable, message: "the share is not mounted")
let broken = DatabaseError(
    reporting: PostgresError(code: .connectionLost, message: "server closed the connection unexpectedly"))

@Suite("JobAttempt: rendering and its outcome")
struct JobAttemptRenderTests {
    @Test func aClaimedJobIsRendered() {
        var driver = AttemptDriver()
        #expect(driver.send(.claimed) == [.render])
        #expect(driver.attempt.state == .rendering && driver.attempt.renderIsWanted)
    }

    @Test func eventsBeforeTheClaimAreIgnored() {
        var driver = AttemptDriver()
        #expect(driver.send(.rendered(result)).isEmpty)
        #expect(driver.send(.tick, at: .seconds(3600)).isEmpty)
        #expect(driver.attempt.state == .new)
    }

    @Test func aRenderIsCompletedAndSucceeds() {
        var driver = AttemptDriver.rendering()
        #expect(driver.send(.rendered(result)) == [.complete(result)])
        #expect(driver.attempt.state == .writing(.complete(result), retried: false))
        #expect(!driver.attempt.renderIsWanted)
        #expect(
            driver.send(.completed(currentAdjustmentID: nil)) == [
                .finish(.succeeded(result, .recorded(currentAdjustmentID: nil)))
            ])
        #expect(driver.attempt.isFinished)
    }

    @Test func aTransientFailureIsRecordedWithTheWaitBeforeARetry() {
        var driver = AttemptDriver.rendering(attempts: 2, randomUnit: 0.5)
        // Second attempt: 10 s doubled, less half the 50% jitter.
        #expect(driver.send(.renderFailed(transient)) == [.fail(transient, retryAfter: .seconds(15))])
        #expect(driver.send(.failureRecorded(.queued)) == [.finish(.retried(transient, after: .seconds(15)))])
    }

    @Test func theRetryDelayUsesTheInjectedChance() {
        var low = AttemptDriver.rendering(randomUnit: 0)
        var high = AttemptDriver.rendering(randomUnit: 1)
        #expect(low.send(.renderFailed(transient)) == [.fail(transient, retryAfter: .seconds(10))])
        #expect(high.send(.renderFailed(transient)) == [.fail(transient, retryAfter: .seconds(5))])
    }

    @Test func aFailureTheDatabaseFailsForGoodFailsTheJob() {
        var driver = AttemptDriver.rendering()
        let corrupt = JobFailure.permanent(code: .jpegCorrupt, message: "Not a JPEG file")
        #expect(driver.send(.renderFailed(corrupt)) == [.fail(corrupt, retryAfter: .seconds(7.5))])
        #expect(corrupt.recorded.isPermanent, "the database fails a permanent failure at once")
        #expect(driver.send(.failureRecorded(.failed)) == [.finish(.failed(corrupt))])
    }

    @Test func aTransientFailureOnTheLastAttemptFailsTheJobWhenTheDatabaseSaysSo() {
        var driver = AttemptDriver.rendering(attempts: 5, maxAttempts: 5)
        // Fifth attempt: 10 s doubled four times, less a quarter.
        #expect(driver.send(.renderFailed(transient)) == [.fail(transient, retryAfter: .seconds(120))])
        #expect(driver.send(.failureRecorded(.failed)) == [.finish(.failed(transient))])
    }

    @Test func writeResultsThatDoNotMatchTheWriteAreIgnored() {
        var driver = AttemptDriver.completing()
        #expect(driver.send(.failureRecorded(.queued)).isEmpty)
        #expect(driver.send(.released).isEmpty)
        #expect(driver.send(.completionNotCommitted).isEmpty)
        #expect(driver.attempt.state == .writing(.complete(result), retried: false))
    }
}

@Suite("JobAttempt: the lease")
struct JobAttemptLeaseTests {
    @Test(arguments: [LeaseLoss.cancelled, .takenOver, .expired(at: nil), .deleted, .requeued])
    func aLostLeaseStopsTheRenderAndDiscardsItsResult(loss: LeaseLoss) {
        var driver = AttemptDriver.rendering()
        #expect(
            driver.send(.heartbeat(LeaseCheck(jobID: 7, loss: loss)), at: .seconds(20)) == [
                .stopRendering(.leaseLost(loss))
            ])
        #expect(!driver.attempt.renderIsWanted)
        let stopped = JobFailure.transient(code: .renderCancelled, message: "the render was stopped")
        #expect(driver.send(.renderFailed(stopped)) == [.finish(.discarded(loss))])
    }

    @Test func aRenderThatFinishesAfterTheLossIsDiscardedToo() {
        var driver = AttemptDriver.rendering()
        _ = driver.send(.heartbeat(LeaseCheck(jobID: 7, loss: .cancelled)))
        #expect(driver.send(.rendered(result)) == [.finish(.discarded(.cancelled))])
    }

    @Test func theFirstLossIsTheOneThatCounts() {
        var driver = AttemptDriver.rendering()
        _ = driver.send(.heartbeat(LeaseCheck(jobID: 7, loss: .cancelled)))
        #expect(driver.send(.heartbeat(LeaseCheck(jobID: 7, loss: .deleted))).isEmpty)
        #expect(driver.send(.tick, at: .seconds(600)).isEmpty)
        #expect(driver.attempt.loss == .cancelled)
    }

    @Test func withoutAHeartbeatTheLeaseRunsOutHere() {
        var driver = AttemptDriver.rendering()
        #expect(driver.send(.tick, at: .seconds(59)).isEmpty)
        #expect(driver.send(.tick, at: .seconds(60)) == [.stopRendering(.leaseLost(.expired(at: nil)))])
        #expect(driver.send(.rendered(result)) == [.finish(.discarded(.expired(at: nil)))])
    }

    @Test func aHeartbeatExtendsTheLeaseFromWhenItWasSent() {
        var driver = AttemptDriver.rendering()
        #expect(driver.send(.heartbeat(LeaseCheck(jobID: 7, loss: nil)), at: .seconds(50)).isEmpty)
        #expect(driver.send(.tick, at: .seconds(109)).isEmpty)
        #expect(driver.send(.tick, at: .seconds(110)) == [.stopRendering(.leaseLost(.expired(at: nil)))])
    }

    @Test func aLateAnswerToAnEarlierHeartbeatDoesNotShortenTheLease() {
        var driver = AttemptDriver.rendering()
        _ = driver.send(.heartbeat(LeaseCheck(jobID: 7, loss: nil)), at: .seconds(50))
        _ = driver.send(.heartbeat(LeaseCheck(jobID: 7, loss: nil)), at: .seconds(20))
        #expect(driver.send(.tick, at: .seconds(100)).isEmpty)
        #expect(driver.attempt.leaseDeadline == driver.start + .seconds(110))
    }

    @Test func heartbeatsDuringAWriteAreLeftToTheWrite() {
        // The heartbeat may see the completion's own commit: the write's answer decides.
        var driver = AttemptDriver.completing()
        #expect(driver.send(.heartbeat(LeaseCheck(jobID: 7, loss: .finished(.succeeded)))).isEmpty)
        #expect(driver.send(.tick, at: .seconds(3600)).isEmpty)
        #expect(
            driver.send(.completed(currentAdjustmentID: 4)) == [
                .finish(.succeeded(result, .recorded(currentAdjustmentID: 4)))
            ])
    }

    @Test(arguments: [
        LeaseLoss.cancelled, .takenOver, .expired(at: Date(timeIntervalSince1970: 1_700_000_000)),
        .finished(.succeeded),
    ])
    func aRefusedCompletionIsDiscarded(loss: LeaseLoss) {
        var driver = AttemptDriver.completing()
        #expect(driver.send(.writeRefused(loss)) == [.finish(.discarded(loss))])
    }

    @Test func aRefusedFailureOrReleaseIsDiscarded() {
        var failing = AttemptDriver.rendering()
        _ = failing.send(.renderFailed(transient))
        #expect(failing.send(.writeRefused(.cancelled)) == [.finish(.discarded(.cancelled))])
        var releasing = AttemptDriver.rendering()
        _ = releasing.send(.shutdownRequested(releaseAt: releasing.start), at: .zero)
        #expect(
            releasing.send(.writeRefused(.requeued)) == [.finish(.discarded(.requeued))],
            "a first try's refusal is not its own commit")
    }

    @Test func anAssetThatChangedMeanwhileFailsTheAttemptForARetry() throws {
        var driver = AttemptDriver.completing()
        let changed = QueueError.assetChanged(assetID: 3, expected: 12, found: 13)
        let actions = driver.send(.assetChanged(changed))
        let failure = JobFailure.transient(code: .assetChanged, message: changed.description)
        #expect(actions == [.fail(failure, retryAfter: .seconds(7.5))])
        guard case .fail(let recorded, _)? = actions.first, (recorded.cause as? QueueError)?.code == .assetChanged
        else {
            Issue.record("the failure keeps the queue's error as its cause: \(actions)")
            return
        }
        #expect(driver.send(.failureRecorded(.queued)) == [.finish(.retried(failure, after: .seconds(7.5)))])
    }

    @Test func aWriteThatFailsForAnotherReasonIsAbandoned() {
        var driver = AttemptDriver.completing()
        let refused = DatabaseError(reporting: PostgresError(code: .queryFailed, message: "violates check constraint"))
        #expect(driver.send(.writeFailed(refused)) == [.finish(.abandoned(.writeFailed(refused)))])
    }
}

@Suite("JobAttempt: reconnecting while writing")
struct JobAttemptReconnectTests {
    @Test func aBrokenCompletionIsCheckedBeforeItIsWrittenAgain() {
        var driver = AttemptDriver.completing()
        #expect(driver.send(.connectionBroke(broken)) == [.reconnect(after: .milliseconds(375))])
        #expect(driver.attempt.state == .waitingToRetry(.complete(result)))
        #expect(driver.send(.readyToRetry) == [.checkCommitted])
        #expect(
            driver.send(.completionCommitted(adjustmentID: nil)) == [
                .finish(.succeeded(result, .foundCommitted(adjustmentID: nil)))
            ])
    }

    @Test func aCompletionThatDidNotCommitIsWrittenAgain() {
        var driver = AttemptDriver.completing()
        _ = driver.send(.connectionBroke(broken))
        _ = driver.send(.readyToRetry)
        #expect(driver.send(.completionNotCommitted) == [.complete(result)])
        #expect(
            driver.send(.completed(currentAdjustmentID: 9)) == [
                .finish(.succeeded(result, .recorded(currentAdjustmentID: 9)))
            ])
    }

    @Test func aRetriedCompletionIsAlwaysCheckedFirst() {
        var driver = AttemptDriver.completing()
        _ = driver.send(.connectionBroke(broken))
        _ = driver.send(.readyToRetry)
        _ = driver.send(.completionNotCommitted)
        _ = driver.send(.connectionBroke(broken))
        #expect(driver.send(.readyToRetry) == [.checkCommitted])
        // The check itself may break too.
        #expect(driver.send(.connectionBroke(broken)).count == 1)
        #expect(driver.send(.readyToRetry) == [.checkCommitted])
    }

    @Test func theBackoffGrowsWithEachBreakAndRestartsAfterAnAnswer() {
        var driver = AttemptDriver.completing()
        var delays: [Duration] = []
        for _ in 0..<9 {
            guard case .reconnect(let delay)? = driver.send(.connectionBroke(broken)).first else {
                Issue.record("expected a reconnect")
                return
            }
            delays.append(delay)
            _ = driver.send(.readyToRetry)
        }
        #expect(
            delays.map { $0.seconds } == [0.375, 0.75, 1.5, 3, 6, 12, 22.5, 22.5, 22.5],
            "0.5 s doubling, capped at 30 s, 3/4 of it at chance 0.5")
        _ = driver.send(.completionNotCommitted)
        #expect(driver.send(.connectionBroke(broken)) == [.reconnect(after: .milliseconds(375))])
    }

    @Test func aBrokenFailureIsWrittenAgainAndItsOwnCommitCounts() {
        var driver = AttemptDriver.rendering()
        _ = driver.send(.renderFailed(transient))
        _ = driver.send(.connectionBroke(broken))
        #expect(driver.send(.readyToRetry) == [.fail(transient, retryAfter: .seconds(7.5))])
        // The first try had committed: the job is queued again, as the failure wanted.
        #expect(driver.send(.writeRefused(.requeued)) == [.finish(.retried(transient, after: .seconds(7.5)))])
    }

    @Test func aBrokenFinalFailureThatCommittedCountsAsFailed() {
        var driver = AttemptDriver.rendering()
        let corrupt = JobFailure.permanent(code: .jpegDamaged, message: "Premature end of JPEG file")
        _ = driver.send(.renderFailed(corrupt))
        _ = driver.send(.connectionBroke(broken))
        _ = driver.send(.readyToRetry)
        #expect(driver.send(.writeRefused(.finished(.failed))) == [.finish(.failed(corrupt))])
    }

    @Test func aRetriedWriteRefusedForAnotherReasonIsDiscarded() {
        var driver = AttemptDriver.rendering()
        _ = driver.send(.renderFailed(transient))
        _ = driver.send(.connectionBroke(broken))
        _ = driver.send(.readyToRetry)
        #expect(driver.send(.writeRefused(.cancelled)) == [.finish(.discarded(.cancelled))])
    }
}

@Suite("JobAttempt: shutdown")
struct JobAttemptShutdownTests {
    @Test func aJobStillRenderingWhenTheGraceRunsOutIsReleased() {
        var driver = AttemptDriver.rendering()
        #expect(driver.send(.shutdownRequested(releaseAt: driver.start + .seconds(30)), at: .seconds(1)).isEmpty)
        #expect(driver.send(.tick, at: .seconds(29)).isEmpty)
        #expect(
            driver.send(.tick, at: .seconds(30)) == [
                .stopRendering(.releasedAtShutdown), .release(.shutdown, delay: .zero),
            ])
        #expect(!driver.attempt.renderIsWanted)
        // The render stops (or ends) after that: too late, the job is being given back.
        #expect(driver.send(.rendered(result)).isEmpty)
        #expect(driver.send(.released) == [.finish(.released(.shutdown))])
    }

    @Test func aJobThatFinishesWithinTheGraceIsRecorded() {
        var driver = AttemptDriver.rendering()
        _ = driver.send(.shutdownRequested(releaseAt: driver.start + .seconds(30)), at: .seconds(1))
        #expect(driver.send(.rendered(result), at: .seconds(10)) == [.complete(result)])
        // A write in flight is not interrupted by the deadline.
        #expect(driver.send(.tick, at: .seconds(31)).isEmpty)
        #expect(driver.send(.completed(currentAdjustmentID: nil)).count == 1)
    }

    @Test func withoutGraceTheJobIsReleasedAtOnce() {
        var driver = AttemptDriver.rendering()
        #expect(
            driver.send(.shutdownRequested(releaseAt: driver.start + .seconds(5)), at: .seconds(5))
                == [.stopRendering(.releasedAtShutdown), .release(.shutdown, delay: .zero)])
    }

    @Test func theFirstDeadlineCounts() {
        var driver = AttemptDriver.rendering()
        _ = driver.send(.shutdownRequested(releaseAt: driver.start + .seconds(30)))
        _ = driver.send(.shutdownRequested(releaseAt: driver.start + .seconds(90)))
        #expect(driver.send(.tick, at: .seconds(30)).count == 2)
    }

    @Test func aJobWhoseLeaseIsGoneHasNothingToRelease() {
        var driver = AttemptDriver.rendering()
        _ = driver.send(.heartbeat(LeaseCheck(jobID: 7, loss: .cancelled)))
        _ = driver.send(.shutdownRequested(releaseAt: driver.start + .seconds(30)))
        #expect(driver.send(.tick, at: .seconds(31)).isEmpty)
        #expect(driver.send(.renderFailed(transient)) == [.finish(.discarded(.cancelled))])
    }

    @Test func aReleaseRefusedAtShutdownIsDiscarded() {
        var driver = AttemptDriver.rendering()
        _ = driver.send(.shutdownRequested(releaseAt: driver.start), at: .seconds(1))
        #expect(driver.send(.writeRefused(.cancelled)) == [.finish(.discarded(.cancelled))])
    }

    @Test func pastTheDeadlineABrokenWriteIsNotRetried() {
        var driver = AttemptDriver.rendering()
        _ = driver.send(.shutdownRequested(releaseAt: driver.start + .seconds(30)))
        #expect(driver.send(.tick, at: .seconds(30)).count == 2)
        #expect(driver.send(.connectionBroke(broken)) == [.finish(.abandoned(.databaseAwayAtShutdown))])
    }

    @Test func aJobWaitingForTheDatabaseIsAbandonedWhenTheGraceRunsOut() {
        var driver = AttemptDriver.completing()
        _ = driver.send(.connectionBroke(broken), at: .seconds(5))
        _ = driver.send(.shutdownRequested(releaseAt: driver.start + .seconds(30)), at: .seconds(6))
        #expect(driver.send(.tick, at: .seconds(29)).isEmpty)
        #expect(driver.send(.tick, at: .seconds(30)) == [.finish(.abandoned(.databaseAwayAtShutdown))])
        // The slot wakes from its backoff later: nothing is left to do.
        #expect(driver.send(.readyToRetry).isEmpty)
    }
}

@Suite("JobAttempt: every attempt ends once")
struct JobAttemptInvariantTests {
    /// Deterministic chance for the event sequences.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let events: [JobAttempt.Event] = [
        .claimed, .rendered(result), .renderFailed(transient),
        .heartbeat(LeaseCheck(jobID: 7, loss: nil)), .heartbeat(LeaseCheck(jobID: 7, loss: .cancelled)), .tick,
        .completed(currentAdjustmentID: 1), .failureRecorded(.queued), .failureRecorded(.failed), .released,
        .writeRefused(.takenOver),
        .writeRefused(.requeued),
        .assetChanged(.assetChanged(assetID: 3, expected: 12, found: nil)), .connectionBroke(broken), .readyToRetry,
        .completionCommitted(adjustmentID: 2), .completionNotCommitted, .writeFailed(broken),
    ]

    @Test func anyOrderOfEventsFinishesAtMostOnceAndNothingFollows() {
        var generator = SplitMix(state: 42)
        for _ in 0..<2000 {
            var driver = AttemptDriver()
            var seconds = 0.0
            var finishes = 0
            if Bool.random(using: &generator) {
                _ = driver.send(
                    .shutdownRequested(releaseAt: driver.start + .seconds(Double.random(in: 0...40, using: &generator)))
                )
            }
            for _ in 0..<30 {
                seconds += Double.random(in: 0...10, using: &generator)
                let wasFinished = driver.attempt.isFinished
                let actions = driver.send(Self.events.randomElement(using: &generator)!, at: .seconds(seconds))
                if wasFinished { #expect(actions.isEmpty, "nothing follows the finish") }
                finishes += actions.filter { if case .finish = $0 { true } else { false } }.count
                if case .finish? = actions.last { #expect(driver.attempt.isFinished) }
                #expect(
                    actions.dropLast().allSatisfy { if case .finish = $0 { false } else { true } },
                    "a finish comes last")
                #expect(finishes <= 1)
            }
        }
    }
}
