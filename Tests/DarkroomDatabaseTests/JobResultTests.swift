import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

@Suite("Completing and failing jobs")
struct JobResultTests {
    @Test func completeWritesOneAdjustmentAndMovesTheCurrentOne() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let store = AssetStore(connection)
            let asset = try registerAsset(1, on: connection)
            #expect(try store.currentAdjustment(of: asset) == nil)

            _ = try queue.enqueueSample(assetID: asset)
            let first = try #require(try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60)).first)
            let firstAdjustment = try queue.complete(first, with: sampleAdjustment(for: first))
            #expect(try store.currentAdjustment(of: asset)?.id == firstAdjustment)

            let done = try #require(try queue.job(id: first.id))
            #expect(done.state == .succeeded)
            #expect(done.adjustmentID == firstAdjustment)
            #expect(done.finishedAt != nil && done.leaseToken == nil && done.leaseExpiresAt == nil)

            _ = try queue.enqueueSample(assetID: asset)
            let second = try #require(try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60)).first)
            let secondAdjustment = try queue.complete(
                second, with: sampleAdjustment(for: second, base: firstAdjustment))
            let current = try #require(try store.currentAdjustment(of: asset))
            #expect(current.id == secondAdjustment)
            #expect(current.baseAdjustmentID == firstAdjustment)
            #expect(current.jobID == second.id)
            #expect(current.data == sampleData)
            #expect(current.renderedPath == "rendered/\(second.id).jpg")

            let history = try store.adjustments(of: asset)
            #expect(history.map(\.id) == [firstAdjustment, secondAdjustment])
            #expect(history.map(\.jobID) == [first.id, second.id])

            // Reporting the same job twice writes nothing more.
            let twice = #expect(throws: QueueError.self) {
                try queue.complete(first, with: sampleAdjustment(for: first))
            }
            guard let twice, twice.code == .leaseLost, twice.jobID == first.id, let loss = twice.leaseLoss else {
                Issue.record("expected leaseLost, got \(String(describing: twice))")
                return
            }
            #expect(loss == .finished(.succeeded))
            #expect(loss.description == "the job is now succeeded")
            #expect(try store.adjustments(of: asset).count == 2)
            #expect(try store.currentAdjustment(of: asset)?.id == secondAdjustment)
        }
    }

    @Test func aForgedOrExpiredLeaseWritesNothing() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            _ = try queue.enqueueSample(assetID: asset)
            let job = try #require(try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60)).first)

            var forged = job
            forged.leaseToken = UUID()
            for attempt in [
                { _ = try queue.complete(forged, with: sampleAdjustment(for: forged)) },
                { _ = try queue.fail(forged, .permanent(code: "internal", message: "y"), retryDelay: .zero) },
            ] {
                let error = #expect(throws: QueueError.self) { try attempt() }
                #expect(error?.code == .leaseLost)
            }

            try expireLease(of: job.id, on: connection)
            let expired = #expect(throws: QueueError.self) { try queue.complete(job, with: sampleAdjustment(for: job)) }
            #expect(expired?.description.contains("lease expired") == true)

            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.adjustments").int == 0)
            #expect(try AssetStore(connection).asset(id: asset)?.currentAdjustmentID == nil)
            let untouched = try #require(try queue.job(id: job.id))
            #expect(untouched.state == .running && untouched.errors.isEmpty && untouched.lastError == nil)
        }
    }

    @Test func aJobCancelledWhileRunningDiscardsItsResult() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            _ = try queue.enqueueSample(assetID: try registerAsset(1, on: connection))
            let job = try #require(try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60)).first)
            #expect(try queue.cancel(jobID: job.id))
            let error = #expect(throws: QueueError.self) { try queue.complete(job, with: sampleAdjustment(for: job)) }
            guard error?.code == .leaseLost, error?.leaseLoss == .cancelled else {
                Issue.record("expected leaseLost because of cancellation, got \(String(describing: error))")
                return
            }
            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.adjustments").int == 0)
        }
    }

    @Test func aTransientFailureRequeuesWithBackoff() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let id = try queue.enqueueSample(assetID: try registerAsset(1, on: connection))
            let job = try #require(try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60)).first)
            #expect(
                try queue.fail(
                    job, .transient(code: "storage_io", message: "no space left on device"), retryDelay: .seconds(30))
                    == .queued)

            let requeued = try #require(try queue.job(id: id))
            #expect(requeued.state == .queued)
            #expect(requeued.attempts == 1)
            #expect(requeued.leaseToken == nil && requeued.finishedAt == nil)
            #expect(requeued.lastError == "storage_io: no space left on device")
            #expect(requeued.errors.map(\.attempt) == [1])
            #expect(requeued.errors.first?.code == "storage_io")
            #expect(requeued.errors.first?.message == "no space left on device")
            #expect(requeued.errors.first?.worker == "w1")
            let wait = try scalar(
                connection, "SELECT extract(epoch FROM run_at - now()) FROM darkroom.jobs WHERE id = $1", [.int(id)]
            ).decode(Double.self)
            #expect(wait > 29 && wait <= 30)
            // Not due yet, so nobody gets it.
            #expect(try queue.claim(workerID: "w2", limit: 1, lease: .seconds(60)).isEmpty)
        }
    }

    @Test func aPermanentFailureFailsAtOnce() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            let id = try queue.enqueueSample(assetID: asset)
            let job = try #require(try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60)).first)
            #expect(
                try queue.fail(
                    job, .permanent(code: "jpeg_damaged", message: "premature end of data"), retryDelay: .seconds(30))
                    == .failed)

            let failed = try #require(try queue.job(id: id))
            #expect(failed.state == .failed && failed.attempts == 1 && failed.finishedAt != nil)
            #expect(failed.errors.map(\.code) == ["jpeg_damaged"])
            let status = try queue.status(recentFailures: 10)
            #expect(status.recentFailures.map(\.jobID) == [id])
            #expect(status.recentFailures.first?.lastError == "jpeg_damaged: premature end of data")
        }
    }

    @Test func oneSQLFunctionDecidesWhetherAFailedAttemptFailsTheJob() throws {
        try withQueueDatabase { _, connection in
            for (permanent, attempts, maxAttempts, fails) in [
                (false, 1, 3, false), (false, 2, 3, false), (false, 3, 3, true), (false, 4, 3, true),
                (true, 1, 3, true), (true, 1, 1, true),
            ] {
                let decided = try scalar(
                    connection, "SELECT darkroom.attempt_fails_job($1, $2::int, $3::int)",
                    [.bool(permanent), .int(Int64(attempts)), .int(Int64(maxAttempts))]
                ).decode(Bool.self)
                #expect(decided == fails, "permanent \(permanent), attempt \(attempts) of \(maxAttempts)")
            }
            // fail_job and the lease rescue both ask it, and nothing else decides.
            for function in ["fail_job", "rescue_expired_leases"] {
                let body = try scalar(
                    connection,
                    """
                    SELECT string_agg(prosrc, '') FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                     WHERE n.nspname = 'darkroom' AND p.proname = $1
                    """, [.text(function)]
                ).decode(String.self)
                #expect(body.contains("darkroom.attempt_fails_job("), "\(function)")
                #expect(!body.contains("max_attempts THEN"), "\(function) decides nothing itself")
            }
        }
    }

    @Test func runningOutOfAttemptsFailsTheJobAndKeepsEveryError() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let id = try queue.enqueueSample(assetID: try registerAsset(1, on: connection))
            _ = try connection.query("UPDATE darkroom.jobs SET max_attempts = 2 WHERE id = $1", [.int(id)])
            let failure = AttemptFailure.transient(code: "spill_failed", message: "no space left for the spill file")

            let first = try #require(try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60)).first)
            #expect(try queue.fail(first, failure, retryDelay: .seconds(30)) == .queued)
            _ = try connection.query("UPDATE darkroom.jobs SET run_at = now() WHERE id = $1", [.int(id)])
            let second = try #require(try queue.claim(workerID: "w2", limit: 1, lease: .seconds(60)).first)
            #expect(second.attempts == 2 && second.maxAttempts == 2)
            #expect(try queue.fail(second, failure, retryDelay: .seconds(30)) == .failed)

            let job = try #require(try queue.job(id: id))
            #expect(job.state == .failed)
            #expect(job.errors.map(\.attempt) == [1, 2])
            #expect(job.errors.map(\.worker) == ["w1", "w2"])
        }
    }

    @Test func cancelAndRetryFollowTheJobStateRules() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)

            func jobs() throws -> [JobState: Int64] {
                let queued = try queue.enqueueSample(assetID: try registerAsset(101, on: connection))
                _ = try queue.enqueueSample(assetID: try registerAsset(102, on: connection), priority: 3)
                let running = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
                _ = try queue.enqueueSample(assetID: try registerAsset(103, on: connection), priority: 3)
                let succeeded = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
                _ = try queue.complete(succeeded, with: sampleAdjustment(for: succeeded))
                _ = try queue.enqueueSample(assetID: try registerAsset(104, on: connection), priority: 3)
                let failed = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
                _ = try queue.fail(failed, .permanent(code: "jpeg_corrupt", message: "bad"), retryDelay: .zero)
                let cancelled = try queue.enqueueSample(assetID: try registerAsset(105, on: connection), priority: -1)
                _ = try queue.cancel(jobID: cancelled)
                return [
                    .queued: queued, .running: running.id, .succeeded: succeeded.id, .failed: failed.id,
                    .cancelled: cancelled,
                ]
            }

            // What the operator API does from each state, and what asset_jobs offers beforehand.
            let cancellable: Set<JobState> = [.queued, .running]
            let retryable: Set<JobState> = [.failed, .cancelled]
            func offered(_ id: Int64) throws -> JobSummary? {
                let assetID = try scalar(connection, "SELECT asset_id FROM darkroom.jobs WHERE id = $1", [.int(id)])
                    .decode(Int64.self)
                return try AssetStore(connection).recentJobs(of: assetID, limit: 50).first { $0.id == id }
            }
            for (state, id) in try jobs() {
                #expect(try queue.job(id: id)?.state == state)
                let summary = try #require(try offered(id))
                #expect(summary.canCancel == cancellable.contains(state), "Cancel offered in \(state)")
                #expect(summary.canRetry == retryable.contains(state), "Retry offered in \(state)")
                #expect(try queue.cancel(jobID: id) == cancellable.contains(state), "cancel from \(state)")
            }
            for (state, id) in try jobs() {
                let retried = try queue.retry(jobID: id)
                #expect(retried == retryable.contains(state), "retry from \(state)")
                if retried {
                    let job = try #require(try queue.job(id: id))
                    #expect(job.state == .queued && job.attempts == 0 && job.finishedAt == nil)
                }
            }
            let unknown = #expect(throws: QueueError.self) { try queue.cancel(jobID: 987_654) }
            #expect(unknown?.code == .jobNotFound)
        }
    }

    @Test func statusCountsEveryStateAndTheOldestQueuedJob() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            let empty = try queue.status(recentFailures: 5)
            #expect(empty.countsByState == [.queued: 0, .running: 0, .succeeded: 0, .failed: 0, .cancelled: 0])
            #expect(empty.oldestQueued == nil && empty.recentFailures.isEmpty)

            let old = try queue.enqueueSample(assetID: asset)
            _ = try connection.query(
                "UPDATE darkroom.jobs SET run_at = now() - interval '90 seconds' WHERE id = $1", [.int(old)])
            _ = try queue.enqueueSample(assetID: asset)
            _ = try queue.enqueueSample(assetID: asset, priority: 10)
            let failures = try (0..<3).map { _ in
                _ = try queue.enqueueSample(assetID: asset, priority: 20)
                let job = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
                _ = try queue.fail(job, .permanent(code: "jpeg_corrupt", message: "bad"), retryDelay: .zero)
                return job.id
            }

            let status = try queue.status(recentFailures: 2)
            #expect(
                status.countsByState[.queued] == 3 && status.countsByState[.failed] == 3
                    && status.countsByState[.running] == 0)
            #expect(status.oldestQueued?.jobID == old)
            let age = try #require(status.oldestQueued?.age)
            #expect(age >= .seconds(89) && age < .seconds(120))
            #expect(status.recentFailures.map(\.jobID) == [failures[2], failures[1]])
        }
    }
}
