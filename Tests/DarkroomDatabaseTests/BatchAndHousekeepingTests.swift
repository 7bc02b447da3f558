import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

@Suite("Batches, fairness and housekeeping")
struct BatchAndHousekeepingTests {
    /// `n` assets in one statement; returns their ids.
    func registerAssets(_ n: Int, on connection: DatabaseConnection) throws -> [Int64] {
        try connection.query(
            """
            INSERT INTO darkroom.assets (original_path, content_sha256, byte_size, pixel_width, pixel_height)
            SELECT 'originals/' || i || '.jpg', lpad(to_hex(i), 64, '0'), 1, 640, 480 FROM generate_series(1, $1::int) AS i
            RETURNING id
            """, [.int(Int64(n))]
        ).map { try $0["id"].decode(Int64.self) }
    }

    func arrayLiteral(_ ids: [Int64]) -> PostgresBind { .text("{" + ids.map(String.init).joined(separator: ",") + "}") }

    @Test func bulkEnqueueIsOneStatementWithOneWakeUp() throws {
        try withQueueDatabase { url, connection in
            let assets = try registerAssets(500, on: connection)
            let listener = try DatabaseConnection(url)
            try listener.listen(JobQueue.notificationChannel)
            let queued = try connection.query(
                "SELECT asset_id, job_id FROM darkroom.enqueue_edits($1::bigint[], 'io.darkroom.pipeline', '1.0.0', '{\"operations\":[]}'::jsonb, batch => 'night-1')",
                [arrayLiteral(assets)])
            #expect(queued.count == 500)
            #expect(try queued.map { try $0["asset_id"].decode(Int64.self) } == assets)
            #expect(
                try scalar(connection, "SELECT count(*) FROM darkroom.jobs WHERE batch = 'night-1' AND priority = -10")
                    .int == 500)
            var wakeups = 0
            while case let arrived = try listener.waitForNotification(timeout: .milliseconds(300)), !arrived.isEmpty {
                wakeups += arrived.count
            }
            #expect(wakeups == 1)
        }
    }

    @Test func bulkEnqueueRefusesEverythingWhenAnAssetIsUnknown() throws {
        try withQueueDatabase { _, connection in
            let assets = try registerAssets(3, on: connection)
            let error = #expect(throws: DatabaseError.self) {
                _ = try connection.query(
                    "SELECT * FROM darkroom.enqueue_edits($1::bigint[], 'io.darkroom.pipeline', '1.0', '\\x00'::bytea)",
                    [arrayLiteral(assets + [999_999, 888_888])])
            }
            #expect(error?.message == "2 of the assets do not exist: 888888, 999999")
            #expect(error?.sqlState == "23503")
            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.jobs").int == 0)
            for (batch, problem) in [
                ("", "must not be empty"), ("a\nb", "control characters"),
                (String(repeating: "x", count: 201), "limit is 200"),
            ] {
                let refused = #expect(throws: DatabaseError.self) {
                    _ = try connection.query(
                        "SELECT * FROM darkroom.enqueue_edits($1::bigint[], 'io.darkroom.pipeline', '1.0', '\\x00'::bytea, 0, $2)",
                        [arrayLiteral(assets), .text(batch)])
                }
                #expect(refused?.message.contains(problem) == true, "\(refused?.message ?? "")")
            }
        }
    }

    @Test func hostileTextIsStoredAsDataNeverRunAsSQL() throws {
        try withQueueDatabase { _, connection in
            let assets = try registerAssets(1, on: connection)
            let hostile = "x'); DROP TABLE darkroom.jobs; --"
            _ = try connection.query(
                "SELECT * FROM darkroom.enqueue_edits($1::bigint[], 'io.darkroom.pipeline', '1.0', '\\x00'::bytea, 0, $2)",
                [arrayLiteral(assets), .text(hostile)])
            #expect(try scalar(connection, "SELECT batch FROM darkroom.jobs").string == hostile)
            #expect(try scalar(connection, "SELECT darkroom.cancel_batch($1)", [.text(hostile)]).int == 1)
            #expect(throws: DatabaseError.self) {
                _ = try connection.query("SELECT darkroom.cancel_batch($1)", [.text("'; SELECT 1; --")])
            }
            #expect(try scalar(connection, "SELECT to_regclass('darkroom.jobs') IS NOT NULL").bool == true)
        }
    }

    /// An interactive edit queued after a 20 000-job batch is claimed next, and the claim reads
    /// the claim index once, never the whole table.
    @Test func interactiveEditsOvertakeABigBatchWithOneIndexScan() throws {
        try withQueueDatabase { _, connection in
            // 20 000 photos, one batch job each, as a bulk re-render queues them.
            _ = try connection.query(
                """
                WITH photos AS (
                    INSERT INTO darkroom.assets (original_path, content_sha256, byte_size, pixel_width, pixel_height)
                    SELECT 'originals/' || n || '.jpg', lpad(to_hex(n), 64, '0'), 1, 1, 1 FROM generate_series(1, 20000) AS n
                    RETURNING id)
                INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data, priority, batch)
                SELECT id, 'io.darkroom.pipeline', '1.0.0', '\\x00', -10, 'rerender' FROM photos
                """)
            let asset = try registerAsset(1, on: connection)
            let queue = JobQueue(connection, logger: .quiet)
            let interactive = try queue.enqueueSample(assetID: asset)
            try connection.execute("ANALYZE darkroom.jobs")
            let before = try scanCounts(connection)
            let first = try queue.claim(
                workerID: "w", limit: 1, lease: .seconds(60),
                formats: [ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "1.0", maxVersion: "1.0.0")])
            #expect(first.map(\.id) == [interactive])
            let after = try scanCounts(connection)
            #expect(after.sequential == before.sequential, "the claim must not scan darkroom.jobs sequentially")
            #expect(after.claimIndex == before.claimIndex + 1, "one scan of jobs_claim_order")
            #expect(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first?.batch == "rerender")
        }
    }

    func scanCounts(_ connection: DatabaseConnection) throws -> (sequential: Int, claimIndex: Int) {
        _ = try connection.query("SELECT pg_stat_force_next_flush()")
        try connection.execute("SELECT 1")  // ends the transaction, so the counters are flushed
        _ = try connection.query("SELECT pg_stat_clear_snapshot()")
        let row = try connection.query(
            """
            SELECT (SELECT seq_scan FROM pg_stat_user_tables WHERE relid = 'darkroom.jobs'::regclass) AS seq,
                   (SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelid = 'darkroom.jobs_claim_order'::regclass) AS idx
            """)[0]
        return (try row["seq"].decode(Int.self), try row["idx"].decode(Int.self))
    }

    @Test func batchesAreCancelledRetriedAndSummarised() throws {
        try withQueueDatabase { url, connection in
            let assets = try registerAssets(4, on: connection)
            _ = try connection.query(
                "SELECT * FROM darkroom.enqueue_edits($1::bigint[], 'io.darkroom.pipeline', '1.0', '\\x00'::bytea, 0, 'b1')",
                [arrayLiteral(assets)])
            let queue = JobQueue(connection, logger: .quiet)
            let jobs = try queue.claim(workerID: "w", limit: 3, lease: .seconds(60))
            _ = try queue.complete(jobs[0], with: sampleAdjustment(for: jobs[0]))
            _ = try queue.fail(jobs[1], .permanent(code: "jpeg_corrupt", message: "bad"), retryDelay: .zero)
            let summary = try connection.query("SELECT * FROM darkroom.batch_summary WHERE batch = 'b1'")[0]
            #expect(summary["total"].int == 4 && summary["succeeded"].int == 1 && summary["failed"].int == 1)
            #expect(summary["running"].int == 1 && summary["queued"].int == 1)
            // Two jobs left at two finished in the last ten minutes: ten minutes to go.
            #expect(
                summary["eta"].value(Duration.self) == .seconds(600) && (summary["jobs_per_second"].double ?? 0) > 0)
            let failure = try connection.query("SELECT batch, errors->0->>'code' AS code FROM darkroom.failures")[0]
            #expect(failure["batch"].string == "b1" && failure["code"].string == "jpeg_corrupt")

            let listener = try DatabaseConnection(url)
            try listener.listen(JobQueue.notificationChannel)
            #expect(
                try scalar(connection, "SELECT darkroom.cancel_batch('b1')").int == 2, "the running and the queued job")
            #expect(try scalar(connection, "SELECT darkroom.retry_batch('b1')").int == 1, "only the failed one")
            #expect(try scalar(connection, "SELECT darkroom.retry_batch('b1', include_cancelled => true)").int == 2)
            var wakeups = 0
            while case let arrived = try listener.waitForNotification(timeout: .milliseconds(300)), !arrived.isEmpty {
                wakeups += arrived.count
            }
            #expect(wakeups == 2, "one wake-up per retry call that queued something")
            // The running job lost its lease when it was cancelled: its late result is discarded.
            #expect(throws: QueueError.self) { try queue.complete(jobs[2], with: sampleAdjustment(for: jobs[2])) }
            let missing = #expect(throws: DatabaseError.self) {
                _ = try connection.query("SELECT darkroom.cancel_batch('nope')")
            }
            #expect(missing?.message == "there is no batch 'nope'")
        }
    }

    @Test func pruningDeletesOldFinishedJobsInBatchesAndKeepsHistory() throws {
        try withQueueDatabase { _, connection in
            let assets = try registerAssets(1, on: connection)
            let queue = JobQueue(connection, logger: .quiet)
            var finished: [Int64] = []
            for _ in 0..<5 {
                _ = try queue.enqueueSample(assetID: assets[0])
                let job = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
                _ = try queue.complete(job, with: sampleAdjustment(for: job))
                finished.append(job.id)
            }
            let recent = try queue.enqueueSample(assetID: assets[0])
            let recentJob = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
            _ = try queue.complete(recentJob, with: sampleAdjustment(for: recentJob))
            let waiting = try queue.enqueueSample(assetID: assets[0])
            _ = try connection.query(
                "UPDATE darkroom.jobs SET finished_at = now() - interval '30 days', created_at = now() - interval '31 days' WHERE id <> ALL($1::bigint[])",
                [.text("{\(recent),\(waiting)}")])

            #expect(try scalar(connection, "SELECT darkroom.prune_jobs(batch_size => 2)").int == 2)
            #expect(try scalar(connection, "SELECT darkroom.prune_jobs(batch_size => 2)").int == 2)
            #expect(try scalar(connection, "SELECT darkroom.prune_jobs(batch_size => 2)").int == 1)
            #expect(try scalar(connection, "SELECT darkroom.prune_jobs(batch_size => 2)").int == 0)
            let left = try connection.query("SELECT id FROM darkroom.jobs ORDER BY id").map {
                try $0["id"].decode(Int64.self)
            }
            #expect(left == [recent, waiting])
            // The adjustments keep their job ids: history outlives the queue.
            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.adjustments").int == 6)
            #expect(throws: DatabaseError.self) {
                _ = try connection.query("SELECT darkroom.prune_jobs(batch_size => 0)")
            }
        }
    }
}
