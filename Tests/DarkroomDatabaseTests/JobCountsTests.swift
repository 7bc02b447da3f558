import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// `darkroom.job_counts`, which queue_summary and batch_summary read instead of counting jobs,
/// stays equal to a real count through every way jobs come, move and go, before and after the
/// heartbeat folds its deltas.
@Suite("Job counts kept by triggers")
struct JobCountsTests {
    /// (batch or "-", state) → jobs, from the kept counts and from the jobs themselves.
    func kept(_ connection: DatabaseConnection) throws -> [String: Int] {
        try counts(
            connection,
            "SELECT coalesce(batch, '-') AS batch, state, sum(jobs)::bigint AS n FROM darkroom.job_counts GROUP BY 1, 2 HAVING sum(jobs) <> 0"
        )
    }

    func actual(_ connection: DatabaseConnection) throws -> [String: Int] {
        try counts(
            connection, "SELECT coalesce(batch, '-') AS batch, state, count(*) AS n FROM darkroom.jobs GROUP BY 1, 2")
    }

    func counts(_ connection: DatabaseConnection, _ sql: String) throws -> [String: Int] {
        var result: [String: Int] = [:]
        for row in try connection.query(sql) {
            result["\(try row["batch"].decode(String.self))/\(try row["state"].decode(String.self))"] = try row["n"]
                .decode(Int.self)
        }
        return result
    }

    @Test func countsFollowEnqueueClaimCompleteFailCancelRetryPruneAndDelete() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let assets = try (1...6).map { try registerAsset($0, on: connection) }
            for asset in assets {
                _ = try queue.enqueue(
                    assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0", data: sampleData,
                    batch: "spring")
            }
            _ = try queue.enqueueSample(assetID: assets[0])
            #expect(try kept(connection) == actual(connection))
            #expect(try kept(connection)["spring/queued"] == 6)

            let claimed = try queue.claim(workerID: "w1", limit: 3, lease: .seconds(60))
            #expect(try kept(connection) == actual(connection))
            _ = try queue.complete(claimed[0], with: sampleAdjustment(for: claimed[0]))
            _ = try queue.fail(claimed[1], .permanent(code: "jpeg_corrupt", message: "damaged"), retryDelay: .zero)
            _ = try queue.fail(
                claimed[2], .transient(code: "storage_io", message: "busy"), retryDelay: .zero)
            #expect(try kept(connection) == actual(connection))

            #expect(try queue.cancel(batch: "spring") == 4)
            #expect(try queue.retry(batch: "spring", includeCancelled: true) == 5)
            #expect(try kept(connection) == actual(connection))

            // A heartbeat folds the deltas: one row per key, the same sums.
            let before = try #require(try scalar(connection, "SELECT count(*) FROM darkroom.job_counts").int)
            _ = try connection.query("SELECT * FROM darkroom.heartbeat('w1', 'host', 1, 60, '{}', '{}')")
            let after = try #require(try scalar(connection, "SELECT count(*) FROM darkroom.job_counts").int)
            #expect(after < before)
            #expect(
                try scalar(
                    connection,
                    """
                    SELECT count(*) FROM (SELECT 1 FROM darkroom.job_counts GROUP BY batch, state, kind, format_identifier, format_version HAVING count(*) > 1) AS k
                    """
                ).int == 0)
            #expect(try kept(connection) == actual(connection))

            // Deleting an asset cascades to its jobs; the counts follow, and so do the views.
            try connection.execute("DELETE FROM darkroom.assets WHERE id = \(assets[5])")
            #expect(try kept(connection) == actual(connection))
            let summary = try queue.status(recentFailures: 0).countsByState
            let real = try actual(connection)
            for state in JobState.allCases {
                #expect(
                    summary[state] == real.filter { $0.key.hasSuffix("/" + state.rawValue) }.values.reduce(0, +),
                    "\(state)")
            }
            let spring = try #require(try queue.progress(ofBatch: "spring"))
            #expect(spring.total == real.filter { $0.key.hasPrefix("spring/") }.values.reduce(0, +))

            try connection.execute("TRUNCATE darkroom.jobs CASCADE")
            #expect(try kept(connection).isEmpty)
            #expect(try queue.progress(ofBatch: "spring") == nil)
        }
    }

    @Test func aBatchKeepsWhenItWasQueuedAfterItsQueuedRowsAreFolded() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            _ = try queue.enqueue(
                assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0", data: sampleData,
                batch: "b")
            let created = try #require(try queue.progress(ofBatch: "b")).createdAt
            let claimed = try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60))
            _ = try queue.complete(claimed[0], with: sampleAdjustment(for: claimed[0]))
            try connection.execute("SELECT darkroom.compact_job_counts()")
            let progress = try #require(try queue.progress(ofBatch: "b"))
            #expect(progress.createdAt == created)
            #expect(progress.succeeded == 1 && progress.queued == 0 && progress.total == 1)
        }
    }
}
