import DarkroomDatabase
import DarkroomTestSupport
import LibPQ
import Testing

@Suite("Job notifications")
struct NotificationTests {
    @Test func oneNotificationPerInsertStatementHoweverManyRows() throws {
        try withQueueDatabase { url, connection in
            let asset = try registerAsset(1, on: connection)
            let listener = try DatabaseConnection(url)
            try listener.listen(JobQueue.notificationChannel)

            let bulk = try connection.query(
                """
                INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data)
                SELECT $1, 'io.darkroom.pipeline', '1.0', '\\x00' FROM generate_series(1, 100)
                """, [.int(asset)])
            #expect(bulk.affectedRows == 100)
            #expect(try notifications(on: listener) == 1)

            // Each further statement wakes workers again; one that inserts nothing does not.
            _ = try JobQueue(connection, logger: .quiet).enqueueSample(assetID: asset)
            _ = try JobQueue(connection, logger: .quiet).enqueueSample(assetID: asset)
            _ = try connection.query(
                """
                INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data)
                SELECT $1, 'io.darkroom.pipeline', '1.0', '\\x00' WHERE false
                """, [.int(asset)])
            #expect(try notifications(on: listener) == 2)
        }
    }

    @Test func theTriggerIsStatementLevel() throws {
        // PostgreSQL folds identical notifications within one transaction, so counting alone
        // cannot tell a per-row trigger apart; the catalog can (tgtype bit 0 = FOR EACH ROW).
        try withQueueDatabase { _, connection in
            let row = try connection.query(
                """
                SELECT tgtype::int & 1 AS row_level, tgenabled::text AS enabled FROM pg_trigger
                 WHERE tgrelid = 'darkroom.jobs'::regclass AND tgname = 'jobs_notify_workers'
                """)
            #expect(row.count == 1)
            #expect(row.first?["row_level"].int == 0)
            #expect(row.first?["enabled"].string == "O")
        }
    }

    @Test func retryingAndReleasingWakeWorkers() throws {
        try withQueueDatabase { url, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let listener = try DatabaseConnection(url)
            _ = try queue.enqueueSample(assetID: try registerAsset(1, on: connection))
            let job = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
            try listener.listen(JobQueue.notificationChannel)

            try queue.release(job)
            #expect(try notifications(on: listener) == 1)
            _ = try queue.cancel(jobID: job.id)
            #expect(try notifications(on: listener) == 0)
            #expect(try queue.retry(jobID: job.id))
            #expect(try notifications(on: listener) == 1)
        }
    }

    /// Notifications received until none arrives for a short while.
    private func notifications(on listener: DatabaseConnection) throws -> Int {
        var count = 0
        while true {
            let arrived = try listener.waitForNotification(timeout: .milliseconds(300))
            if arrived.isEmpty { return count }
            #expect(arrived.allSatisfy { $0.channel == JobQueue.notificationChannel && $0.payload.isEmpty })
            count += arrived.count
        }
    }
}
