import DarkroomTestSupport
import LibPQ
import Testing

@testable import DarkroomDatabase

@Suite("Migrator")
struct MigratorTests {
    @Test func firstRunAppliesEverythingAndSecondRunNothing() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try DatabaseConnection(url)
            let migrator = Migrator.forTestDatabase(url)
            #expect(try migrator.appliedVersions(on: connection) == [])
            #expect(try !Migrator.schemaExists(on: connection))
            let all = Migration.darkroom.map(\.version)
            #expect(Array(all.prefix(6)) == [1, 2, 3, 4, 5, 6])
            #expect(try migrator.migrate(on: connection, logger: .quiet) == all)
            #expect(try Migrator.schemaExists(on: connection))
            #expect(try migrator.migrate(on: connection, logger: .quiet) == [])
            #expect(try migrator.appliedVersions(on: connection) == all)
            let names = try connection.query("SELECT name FROM darkroom.schema_migrations ORDER BY version").map {
                $0["name"].string
            }
            #expect(
                Array(names.prefix(6)) == [
                    "initial", "triggers", "operator_api", "queue_schema", "leases", "operator_batches",
                ])
        }
    }

    @Test func theSchemaHasItsTablesFunctionsAndViews() throws {
        try withQueueDatabase { _, connection in
            let relations = try connection.query(
                """
                SELECT c.relname, c.relkind::text AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = 'darkroom' AND c.relkind IN ('r', 'v') ORDER BY c.relname
                """
            ).map { "\($0["relname"].string!):\($0["kind"].string!)" }
            for expected in [
                "adjustments:r", "assets:r", "jobs:r", "queue_summary:v", "recent_failures:v", "schema_migrations:r",
                "settings:r", "workers:r", "job_runs:r", "batch_summary:v", "failures:v", "worker_status:v",
                "waiting_for_editor:v", "asset_history:r",
            ] {
                #expect(relations.contains(expected), "missing \(expected); have \(relations)")
            }

            let functions = try connection.query(
                """
                SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS signature
                  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                 WHERE n.nspname = 'darkroom' ORDER BY 1
                """
            ).map { $0["signature"].string! }
            for expected in [
                "enqueue_edit(asset_id bigint, format_identifier text, format_version text, data bytea, priority integer, batch text)",
                "enqueue_edit(asset_id bigint, format_identifier text, format_version text, data jsonb, priority integer, batch text)",
                "enqueue_edit(asset_id bigint, format_identifier text, format_version text, data text, priority integer, batch text)",
                "cancel_job(job_id bigint)", "retry_job(job_id bigint)",
                "enqueue_edits(asset_ids bigint[], format_identifier text, format_version text, data bytea, priority integer, batch text)",
                "enqueue_edits(asset_ids bigint[], format_identifier text, format_version text, data jsonb, priority integer, batch text)",
                "cancel_batch(batch text)", "retry_batch(batch text, include_cancelled boolean)",
                "claim_jobs(worker_name text, max_jobs integer, lease_seconds double precision, formats jsonb, worker_release text)",
                "prune_jobs(keep_succeeded interval, keep_failed interval, keep_cancelled interval, batch_size integer)",
                "rescue_expired_leases()",
                "enqueue_revert(asset_id bigint, last_only boolean, priority integer, batch text)",
                "enqueue_rerender(format_identifier text, below_version text, priority integer, batch text)",
            ] {
                #expect(functions.contains(expected), "missing \(expected); have \(functions)")
            }
            // A function that runs with the owner's rights fixes its search_path, so nothing the
            // caller sets changes what it calls (RoleTests checks what each role may call).
            let unpinned = try connection.query(
                """
                SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                 WHERE n.nspname = 'darkroom' AND p.prosecdef
                   AND NOT coalesce(p.proconfig @> ARRAY['search_path=pg_catalog, pg_temp'], false)
                """
            ).map { $0["name"].string ?? "" }
            #expect(unpinned.isEmpty, "SECURITY DEFINER without a fixed search_path: \(unpinned)")

            let claimIndex =
                try scalar(connection, "SELECT pg_get_indexdef('darkroom.jobs_claim_order'::regclass)").string ?? ""
            #expect(claimIndex.contains("(priority DESC, run_at, id) WHERE (state = 'queued'::text)"))
            let onePerJob =
                try scalar(connection, "SELECT pg_get_indexdef('darkroom.adjustments_one_per_job'::regclass)").string
                ?? ""
            #expect(onePerJob.hasPrefix("CREATE UNIQUE INDEX") && onePerJob.contains("WHERE (job_id IS NOT NULL)"))
        }
    }

    @Test func workersStartingTogetherApplyEachMigrationOnce() throws {
        try TestDatabase.withFreshDatabase { url in
            let results = try runConcurrently(
                (0..<3).map { _ in
                    { @Sendable in
                        try Migrator.forTestDatabase(url).migrate(on: try DatabaseConnection(url), logger: .quiet)
                    }
                })
            #expect(results.flatMap { $0 }.sorted() == Migration.darkroom.map(\.version))
            #expect(results.filter { !$0.isEmpty }.count == 1)
        }
    }

    @Test func aFailingMigrationAppliesNothing() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try DatabaseConnection(url)
            let broken = Migrator(
                migrations: Migration.darkroom + [
                    Migration(
                        version: 99, name: "broken", sql: "CREATE TABLE darkroom.x (); SELECT * FROM no_such_table")
                ])
            let error = #expect(throws: QueueError.self) { try broken.migrate(on: connection, logger: .quiet) }
            guard let error, error.code == .migrationFailed, error.migrationVersion == 99,
                error.migrationName == "broken", let underlying = error.cause
            else {
                Issue.record("expected migrationFailed for 99, got \(String(describing: error))")
                return
            }
            #expect(underlying.sqlState == "42P01")
            #expect(error.description.contains("none were applied"))
            #expect(try Migrator().appliedVersions(on: connection) == [])
            #expect(try scalar(connection, "SELECT to_regclass('darkroom.jobs') IS NULL").bool == true)
        }
    }
}
