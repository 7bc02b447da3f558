import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

@Suite("Claiming jobs")
struct JobClaimTests {
    @Test func claimsByPriorityThenRunAtAndSkipsJobsNotYetDue() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let low = try queue.enqueueSample(assetID: try registerAsset(101, on: connection))
            let high = try queue.enqueueSample(assetID: try registerAsset(102, on: connection), priority: 5)
            let earlier = try queue.enqueueSample(assetID: try registerAsset(103, on: connection))
            let future = try queue.enqueueSample(assetID: try registerAsset(104, on: connection), priority: 9)
            _ = try connection.query(
                "UPDATE darkroom.jobs SET run_at = now() - interval '1 hour' WHERE id = $1", [.int(earlier)])
            _ = try connection.query(
                "UPDATE darkroom.jobs SET run_at = now() + interval '1 hour' WHERE id = $1", [.int(future)])

            let first = try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60))
            #expect(first.map(\.id) == [high])
            let rest = try queue.claim(workerID: "w1", limit: 10, lease: .seconds(60))
            #expect(rest.map(\.id) == [earlier, low])
            #expect(try queue.claim(workerID: "w1", limit: 10, lease: .seconds(60)).isEmpty)
            #expect(try queue.job(id: future)?.state == .queued)

            let job = try #require(first.first)
            #expect(job.attempts == 1 && job.maxAttempts == 5)
            #expect(job.leasedBy == "w1")
            #expect(
                job.data == sampleData && job.formatIdentifier == "io.darkroom.pipeline" && job.formatVersion == "1.0")
            let stored = try #require(try queue.job(id: job.id))
            #expect(stored.state == .running)
            #expect(stored.leaseToken == job.leaseToken)
            #expect(stored.startedAt != nil)
            let leaseSeconds = try scalar(
                connection, "SELECT extract(epoch FROM lease_expires_at - now()) FROM darkroom.jobs WHERE id = $1",
                [.int(job.id)]
            ).decode(Double.self)
            #expect(leaseSeconds > 50 && leaseSeconds <= 60)
        }
    }

    @Test func leaseBoundsLiveInSQLAndClaimsAndHeartbeatsRefuseWhatItRefuses() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            #expect(try queue.leaseProblem(.seconds(3)) == nil && queue.leaseProblem(.seconds(86400)) == nil)
            let short = try #require(try queue.leaseProblem(.milliseconds(2500)))
            #expect(short.contains("3 to 86400 seconds"), "\(short)")
            #expect(try queue.leaseProblem(.seconds(86401)) != nil)
            _ = try queue.enqueueSample(assetID: try registerAsset(1, on: connection))
            let refused = #expect(throws: DatabaseError.self) {
                _ = try queue.claim(workerID: "w", limit: 1, lease: .milliseconds(2500))
            }
            #expect(refused?.message.contains(short) == true, "\(String(describing: refused))")
            #expect(try queue.claim(workerID: "w", limit: 1, lease: .seconds(3)).count == 1)
        }
    }

    @Test func aJobLockedByAnotherClaimIsSkippedNotWaitedFor() throws {
        try withQueueDatabase { url, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let first = try queue.enqueueSample(assetID: try registerAsset(101, on: connection), priority: 5)
            let second = try queue.enqueueSample(assetID: try registerAsset(102, on: connection))
            let other = try DatabaseConnection(url)
            // Without SKIP LOCKED the second claim would wait for the first transaction and time out.
            try other.execute("SET statement_timeout = '3s'")
            try connection.withTransaction {
                let held = try queue.claim(workerID: "a", limit: 1, lease: .seconds(60))
                #expect(held.map(\.id) == [first])
                let taken = try JobQueue(other, logger: .quiet).claim(workerID: "b", limit: 5, lease: .seconds(60))
                #expect(taken.map(\.id) == [second])
            }
        }
    }

    @Test func concurrentClaimersNeverShareAJob() throws {
        try withQueueDatabase { url, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let all = try (0..<60).map { n in
                try queue.enqueueSample(assetID: try registerAsset(10 + n, on: connection))
            }

            let claims = try runConcurrently(
                (0..<3).map { worker in
                    { @Sendable () throws -> [Int64] in
                        let queue = JobQueue(try DatabaseConnection(url), logger: .quiet)
                        var mine: [Int64] = []
                        while true {
                            let batch = try queue.claim(workerID: "w\(worker)", limit: 2, lease: .seconds(60))
                            if batch.isEmpty { return mine }
                            mine += batch.map(\.id)
                        }
                    }
                })
            let claimed = claims.flatMap { $0 }
            #expect(claimed.count == all.count)
            #expect(Set(claimed) == Set(all))
            #expect(
                try scalar(connection, "SELECT count(*) FROM darkroom.jobs WHERE state = 'running' AND attempts = 1")
                    .int == all.count)
        }
    }

    @Test func anExpiredLeaseIsRescuedByTheNextClaim() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            let id = try queue.enqueueSample(assetID: asset)
            let abandoned = try #require(try queue.claim(workerID: "dead-worker", limit: 1, lease: .seconds(60)).first)
            try expireLease(of: id, on: connection)

            let again = try queue.claim(workerID: "w2", limit: 1, lease: .seconds(60))
            #expect(again.map(\.id) == [id])
            #expect(again.first?.attempts == 2)
            #expect(again.first?.leaseToken != abandoned.leaseToken)
            let job = try #require(try queue.job(id: id))
            #expect(job.lastError == "lease expired (worker dead-worker stopped heartbeating)")
            #expect(job.errors.count == 1)
            #expect(job.errors.first?.attempt == 1)
            #expect(job.errors.first?.code == "lease_expired")
            #expect(job.errors.first?.worker == "dead-worker")

            // The dead worker's late report is discarded.
            let late = #expect(throws: QueueError.self) {
                try queue.complete(abandoned, with: sampleAdjustment(for: abandoned))
            }
            #expect(late?.code == .leaseLost)
            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.adjustments").int == 0)
        }
    }

    @Test func anExpiredLeaseOnTheLastAttemptFailsTheJob() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let id = try queue.enqueueSample(assetID: try registerAsset(1, on: connection))
            _ = try connection.query("UPDATE darkroom.jobs SET max_attempts = 1 WHERE id = $1", [.int(id)])
            _ = try queue.claim(workerID: "crashy", limit: 1, lease: .seconds(60))
            try expireLease(of: id, on: connection)
            #expect(try queue.rescueExpiredLeases() == 1)
            let job = try #require(try queue.job(id: id))
            #expect(job.state == .failed)
            #expect(job.finishedAt != nil)
            #expect(job.leaseToken == nil)
        }
    }

    @Test func extendingALeaseNeedsTheLiveToken() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let worker = WorkerIdentity(name: "w1", host: "host-1", pid: 42)
            _ = try queue.enqueueSample(assetID: try registerAsset(1, on: connection))
            let job = try #require(try queue.claim(workerID: "w1", limit: 1, lease: .seconds(5)).first)
            #expect(try queue.heartbeat(worker, lease: .seconds(600), jobs: [job], formats: [])[job.id]?.loss == nil)
            let remaining = try scalar(
                connection, "SELECT extract(epoch FROM lease_expires_at - now()) FROM darkroom.jobs WHERE id = $1",
                [.int(job.id)]
            ).decode(Double.self)
            #expect(remaining > 590)

            var forged = job
            forged.leaseToken = UUID()
            #expect(
                try queue.heartbeat(worker, lease: .seconds(600), jobs: [forged], formats: [])[job.id]?.loss
                    == .takenOver)
            try expireLease(of: job.id, on: connection)
            #expect(
                try queue.heartbeat(worker, lease: .seconds(600), jobs: [job], formats: [])[job.id]?.loss
                    == .expired(at: nil))
        }
    }

    @Test func releasingGivesTheJobBackWithoutSpendingAnAttempt() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let id = try queue.enqueueSample(assetID: try registerAsset(1, on: connection))
            let job = try #require(try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60)).first)
            try queue.release(job)
            let released = try #require(try queue.job(id: id))
            #expect(released.state == .queued && released.attempts == 0 && released.leaseToken == nil)
            #expect(try queue.claim(workerID: "w2", limit: 1, lease: .seconds(60)).first?.attempts == 1)
            #expect(throws: QueueError.self) { try queue.release(job) }
        }
    }
}

/// Makes a lease look long expired, as if its worker had died.
func expireLease(of jobID: Int64, on connection: DatabaseConnection) throws {
    _ = try connection.query(
        "UPDATE darkroom.jobs SET lease_expires_at = now() - interval '1 minute' WHERE id = $1", [.int(jobID)])
}
