import DarkroomDatabase
import DarkroomTestSupport
import LibPQ
import Testing

/// The codes of the queue's and LibPQ's errors are what logs and callers match on: their
/// spellings are fixed here, so a renamed case cannot silently change them.
@Suite("Error codes")
struct ErrorCodeTests {
    @Test func queueCodesKeepTheirSpelling() {
        #expect(
            QueueError.Code.allCases.map(\.rawValue) == [
                "lease_lost", "asset_not_found", "asset_changed", "job_not_found", "invalid_job", "invalid_asset",
                "migration_failed", "definition_failed", "role_names_refused", "grants_failed",
            ])
    }

    @Test func postgresCodesKeepTheirSpelling() {
        let spellings = [
            "postgres_connection_failed", "postgres_connection_lost", "postgres_query_failed",
            "postgres_unexpected_result", "postgres_invalid_parameter",
        ]
        #expect(PostgresError.Code.allCases.map(\.rawValue) == spellings)
        // What the modules above see is what libpq reported, code for code.
        #expect(DatabaseError.Code.allCases.map(\.rawValue) == spellings)
        for code in PostgresError.Code.allCases {
            #expect(DatabaseError(reporting: PostgresError(code: code, message: "m")).code.rawValue == code.rawValue)
        }
    }

    /// Each constructor carries the context a caller decides on, and a message saying what to do.
    @Test func queueErrorsCarryTheirContext() {
        let lost = QueueError.leaseLost(jobID: 5, reason: .takenOver)
        #expect(lost.code == .leaseLost && lost.jobID == 5 && lost.leaseLoss == .takenOver)
        let changed = QueueError.assetChanged(assetID: 3, expected: nil, found: 13)
        #expect(changed.code == .assetChanged && changed.assetID == 3)
        #expect(changed.expectedAdjustmentID == nil && changed.foundAdjustmentID == 13)
        #expect(changed.description.contains("asset 3 now shows adjustment 13, not the original"))
        let refused = DatabaseError(
            reporting: PostgresError(
                code: .queryFailed, sqlState: .checkViolation, message: "violates", constraintName: "c"))
        let asset = QueueError.invalidAsset(path: "a.jpg", constraint: "c", cause: refused)
        #expect(
            asset.code == .invalidAsset && asset.object == "a.jpg"
                && asset.cause?.postgresError.sqlState == .checkViolation)
        #expect(asset.description == "the asset a.jpg was refused by c: violates; fix the value the importer computed")
        let migration = QueueError.migrationFailed(version: 7, name: "seven", cause: refused)
        #expect(migration.migrationVersion == 7 && migration.migrationName == "seven" && migration.cause != nil)
        let job = QueueError.invalidJob("no data", hint: "give it data")
        #expect(
            job.code == .invalidJob && job.cause == nil
                && job.description == "the job was refused: no data; give it data")
    }

    /// A failure libpq reports (no SQLSTATE) says what to do; the server's own hint wins.
    @Test func postgresErrorsSayWhatToDo() {
        let refused = DatabaseError(reporting: PostgresError(code: .connectionFailed, message: "connection refused"))
        #expect(refused.isConnectionFailure)
        #expect(
            refused.description
                == "postgres_connection_failed: connection refused; check that PostgreSQL is running and that the "
                + "database URL (host, port, user, database) is right")
        let hinted = DatabaseError(
            reporting: PostgresError(code: .queryFailed, sqlState: .raiseException, message: "no", hint: "do this"))
        #expect(hinted.description == "ERROR P0001: no — hint: do this")
        #expect(!hinted.isConnectionFailure)
    }
}
