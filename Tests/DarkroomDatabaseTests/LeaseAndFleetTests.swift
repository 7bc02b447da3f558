import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

@Suite("Leases, crash loops and a mixed fleet")
struct LeaseAndFleetTests {
    let worker = WorkerIdentity(name: "host-1/0", host: "host-1", pid: 42)
    /// Reads 1.x up to 1.0.0, pre-releases included ("1.0.0-0" is the lowest 1.x version).
    let pipelineOnePointZero = [
        ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "1.0.0-0", maxVersion: "1.0.0")
    ]

    func enqueue(
        _ connection: DatabaseConnection, asset: Int64, identifier: String = "io.darkroom.pipeline", version: String
    ) throws -> Int64 {
        try JobQueue(connection, logger: .quiet).enqueue(
            assetID: asset, formatIdentifier: identifier, formatVersion: version, data: sampleData)
    }

    @Test func aWorkerClaimsOnlyWhatItsEditorsCanRead() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let newer = try enqueue(connection, asset: try registerAsset(201, on: connection), version: "1.1.0")
            let beta = try enqueue(connection, asset: try registerAsset(202, on: connection), version: "1.0.0-beta.2")
            let current = try enqueue(connection, asset: try registerAsset(203, on: connection), version: "1.0")
            let foreign = try enqueue(
                connection, asset: try registerAsset(204, on: connection), identifier: "com.example.other",
                version: "1.0")
            let old = try enqueue(connection, asset: try registerAsset(205, on: connection), version: "0.9.0")

            let claimed = try queue.claim(
                workerID: "old-worker", limit: 10, lease: .seconds(60), formats: pipelineOnePointZero)
            #expect(Set(claimed.map(\.id)) == [beta, current])
            // The jobs it cannot render wait, queued and untouched, for a worker that can.
            for id in [newer, foreign, old] {
                let job = try #require(try queue.job(id: id))
                #expect(job.state == .queued && job.attempts == 0)
            }
            let upgraded = [ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "1.0", maxVersion: "1.1.0")]
            #expect(
                try queue.claim(workerID: "new-worker", limit: 10, lease: .seconds(60), formats: upgraded).map(\.id)
                    == [newer])
            #expect(
                try queue.claim(workerID: "any", limit: 10, lease: .seconds(60), formats: nil).map(\.id).sorted() == [
                    foreign, old,
                ])
            // Release precedence: a 1.0-only reader does not take 1.0.0 pre-releases.
            let releasesOnly = [
                ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "1.0", maxVersion: "1.0")
            ]
            let pre = try enqueue(connection, asset: try registerAsset(206, on: connection), version: "1.0.0-rc.1")
            #expect(try queue.claim(workerID: "strict", limit: 10, lease: .seconds(60), formats: releasesOnly).isEmpty)
            #expect(
                try queue.claim(workerID: "loose", limit: 10, lease: .seconds(60), formats: pipelineOnePointZero).map(
                    \.id) == [
                        pre
                    ])
        }
    }

    @Test func jobsNoLiveWorkerCanRenderAreListedAsWaiting() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            _ = try enqueue(connection, asset: asset, version: "1.0.0")
            _ = try enqueue(connection, asset: asset, version: "2.0.0")
            _ = try queue.heartbeat(worker, lease: .seconds(60), jobs: [], formats: pipelineOnePointZero)
            let waiting = try connection.query("SELECT format_version, jobs FROM darkroom.waiting_for_editor")
            #expect(waiting.map { "\($0["format_version"].string!):\($0["jobs"].int!)" } == ["2.0.0:1"])
            let fleet = try connection.query("SELECT name, alive, formats::text AS formats FROM darkroom.worker_status")
            #expect(fleet.count == 1 && fleet[0]["alive"].bool == true)
            #expect(fleet[0]["formats"].string?.contains("io.darkroom.pipeline") == true)
            try queue.workerStopped(worker)
            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.workers").int == 0)
        }
    }

    @Test(arguments: [
        #"{"identifier":"io.darkroom.pipeline"}"#, #"[{"identifier":"pipeline","min":"1.0","max":"1.0"}]"#,
        #"[{"identifier":"io.x","min":"1.0","max":"v2"}]"#, #"[1]"#,
    ])
    func malformedFormatListsAreRefused(json: String) throws {
        _ = try withQueueDatabase { _, connection in
            #expect(throws: DatabaseError.self) {
                _ = try connection.query("SELECT * FROM darkroom.claim_jobs('w', 1, 60, $1::jsonb)", [.text(json)])
            }
        }
    }

    @Test func versionsSortBySemverPrecedence() throws {
        try withQueueDatabase { _, connection in
            let ordered = ["0.9.0", "1.0.0-alpha", "1.0", "1.0.1", "1.2.0-rc.1+build", "1.2.0", "1.10.0", "10.0.0"]
            let keys = try ordered.map {
                try scalar(connection, "SELECT darkroom.semver_sort_key($1)", [.text($0)]).decode(String.self)
            }
            #expect(keys == keys.sorted())
            #expect(Set(keys).count == keys.count)
            #expect(keys[2] == (try scalar(connection, "SELECT darkroom.semver_sort_key('1.0.0')").string))
        }
    }

    @Test func aHeartbeatExtendsHeldLeasesAndReportsCancelledOnes() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            _ = try queue.enqueueSample(assetID: try registerAsset(101, on: connection))
            _ = try queue.enqueueSample(assetID: try registerAsset(102, on: connection))
            let jobs = try queue.claim(workerID: worker.name, limit: 2, lease: .seconds(5))
            try #require(jobs.count == 2)
            #expect(try queue.cancel(jobID: jobs[1].id))
            let checks = try queue.heartbeat(worker, lease: .seconds(600), jobs: jobs, formats: pipelineOnePointZero)
            #expect(checks[jobs[0].id] == LeaseCheck(jobID: jobs[0].id, loss: nil))
            #expect(checks[jobs[1].id]?.held == false)
            #expect(checks[jobs[1].id]?.loss == .cancelled)
            #expect(checks[jobs[1].id]?.loss?.description == "the job was cancelled")
            let remaining = try scalar(
                connection, "SELECT extract(epoch FROM lease_expires_at - now()) FROM darkroom.jobs WHERE id = $1",
                [.int(jobs[0].id)]
            ).decode(Double.self)
            #expect(remaining > 590)
            // A heartbeat whose lease ran out does not revive it.
            try expireLease(of: jobs[0].id, on: connection)
            #expect(
                try queue.heartbeat(worker, lease: .seconds(600), jobs: [jobs[0]], formats: [])[jobs[0].id]?.loss
                    == .expired(at: nil))
        }
    }

    @Test func aJobThatKillsItsWorkerRepeatedlyIsParkedAsACrashLoop() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let id = try queue.enqueueSample(assetID: try registerAsset(1, on: connection))
            _ = try connection.query("UPDATE darkroom.jobs SET max_attempts = 10 WHERE id = $1", [.int(id)])
            for crash in 1...3 {
                let job = try #require(
                    try queue.claim(workerID: "victim-\(crash)", limit: 1, lease: .seconds(60)).first)
                #expect(job.id == id && job.crashes == crash - 1)
                try expireLease(of: id, on: connection)
                _ = try connection.query(
                    "UPDATE darkroom.jobs SET run_at = now() WHERE id = $1 AND state = 'queued'", [.int(id)])
                #expect(try queue.rescueExpiredLeases() == 1)
            }
            let parked = try #require(try queue.job(id: id))
            #expect(parked.state == .failed)
            #expect(parked.attempts == 3, "parked long before max_attempts")
            #expect(
                parked.lastError?.hasPrefix(
                    "crash loop: the worker running this job stopped heartbeating 3 times in a row") == true)
            #expect(parked.errors.map(\.code) == ["lease_expired", "lease_expired", "crash_loop"])
            #expect(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).isEmpty)

            // An operator's retry gives it its full chances again.
            #expect(try queue.retry(jobID: id))
            let again = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
            #expect(again.crashes == 0)
        }
    }

    @Test func anAttemptThatEndsNormallyBreaksTheCrashChain() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let id = try queue.enqueueSample(assetID: try registerAsset(1, on: connection))
            _ = try connection.query("UPDATE darkroom.jobs SET max_attempts = 10 WHERE id = $1", [.int(id)])
            for round in 1...4 {
                _ = try queue.claim(workerID: "w", limit: 1, lease: .seconds(60))
                try expireLease(of: id, on: connection)
                try queue.rescueExpiredLeases()
                let job = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
                #expect(job.crashes == 1, "round \(round)")
                _ = try queue.fail(
                    job, .transient(code: "storage_unavailable", message: "share not mounted"),
                    retryDelay: .milliseconds(1))
                _ = try connection.query(
                    "UPDATE darkroom.jobs SET run_at = now(), attempts = 0 WHERE id = $1", [.int(id)])
            }
            #expect(try queue.job(id: id)?.state == .queued)
        }
    }

    @Test func setCrashLimitIsValidated() throws {
        try withQueueDatabase { _, connection in
            _ = try connection.query("UPDATE darkroom.settings SET value = '5' WHERE name = 'crash_limit'")
            for (name, value) in [
                ("crash_limit", "0"), ("crash_limit", "three"), ("keep_succeeded", "soon"), ("keep_failed", "-1 day"),
            ] {
                #expect(throws: DatabaseError.self, "\(name)=\(value)") {
                    _ = try connection.query(
                        "UPDATE darkroom.settings SET value = $2 WHERE name = $1", [.text(name), .text(value)])
                }
            }
            #expect(throws: DatabaseError.self) {
                _ = try connection.query("INSERT INTO darkroom.settings VALUES ('no_such_setting', '1', 'x')")
            }
        }
    }
}
