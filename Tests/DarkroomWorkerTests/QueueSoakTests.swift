import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// Long fault tests for `make soak`, which starts what they need and sets DARKROOM_SOAK=1.
/// They restart the shared server, so they never run in `make test` beside other suites.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["DARKROOM_SOAK"] == "1", "run with `make soak`"))
struct QueueSoakTests {
    /// A setting `make soak` provides; missing means the soak is misconfigured, a failure.
    func required(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw SoakSetupError(description: "\(name) is not set; run the soak tests with `make soak`")
        }
        return value
    }

    func enqueueMany(_ f: QueueFaultFixture, jobs: Int, size: (Int, Int)) throws {
        let assets = try (0..<4).map { try f.importPhoto(width: size.0, height: size.1, seed: UInt8($0)) }
        _ = try f.connection.query(
            """
            INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data)
            SELECT ($1::bigint[])[1 + i % 4], 'io.darkroom.pipeline', '1.0.0', convert_to('{"operations":[{"op":"exposure","ev":0.3}]}', 'UTF8')
              FROM generate_series(0, $2::int - 1) AS i
            """, [.text("{" + assets.map(String.init).joined(separator: ",") + "}"), .int(Int64(jobs))])
    }

    /// PostgreSQL restarts (fast shutdown: every session is cut) twice while 3 workers drain
    /// 300 jobs: they reconnect with backoff and carry on; every job completes exactly once.
    @Test func postgresRestartsMidDrainAndEverythingCompletesOnce() throws {
        let restart = try required("DARKROOM_SOAK_RESTART")
        try QueueFaultFixture.with { f in
            let jobs = 300
            try enqueueMany(f, jobs: jobs, size: (640, 480))
            let workers = try (0..<3).map { _ in
                try WorkerProcess(f.command, ["worker", "--drain", "--lease", "30", "--log-level", "info"])
            }
            for round in 1...2 {
                try f.waitUntil(
                    "a third of the jobs done (round \(round))", timeout: .seconds(300),
                    "SELECT count(*) >= $1 FROM darkroom.jobs WHERE state = 'succeeded'",
                    [.int(Int64(jobs * round / 3))])
                // system(3), not Process: the new postmaster inherits Foundation's exit-watch
                // descriptor, so Process would never see the shell exit.
                let status = system(restart)
                try #require(status == 0, "restarting PostgreSQL failed (\(status)): \(restart)")
            }
            for worker in workers { #expect(worker.wait(timeout: .seconds(600)) == 0, "\(worker.stderr.suffix(3000))") }
            let connection = try DatabaseConnection(f.url)
            let row = try connection.query(
                """
                SELECT count(*) FILTER (WHERE state = 'succeeded') AS succeeded,
                       (SELECT count(*) FROM darkroom.adjustments) AS results,
                       (SELECT count(DISTINCT job_id) FROM darkroom.adjustments) AS jobs_with_results
                  FROM darkroom.jobs
                """)[0]
            #expect(row["succeeded"].int == jobs && row["results"].int == jobs && row["jobs_with_results"].int == jobs)
            let reconnects = workers.map {
                $0.stderr.components(separatedBy: "database unavailable; reconnecting").count - 1
            }
            #expect(reconnects.reduce(0, +) > 0, "the restarts were noticed")
            let successes = workers.map { $0.stderr.components(separatedBy: "job succeeded").count - 1 }
            #expect(successes.reduce(0, +) == jobs, "no job was completed twice: \(successes)")
        }
    }

    /// Claims and completions through PgBouncer in transaction pooling mode (no session state
    /// on pooled connections), LISTEN on a direct connection.
    @Test func workersDrainThroughPgBouncerInTransactionMode() throws {
        let bouncer = try required("DARKROOM_SOAK_PGBOUNCER_URL")
        try QueueFaultFixture.with { f in
            let jobs = 400
            try enqueueMany(f, jobs: jobs, size: (96, 64))
            let database = try f.value("SELECT current_database()").decode(String.self)
            let pooled = bouncer + "/" + database
            let probe = try DatabaseConnection(pooled)
            #expect(try probe.query("SELECT count(*) AS n FROM darkroom.jobs")[0]["n"].int == jobs)
            let workers = try (0..<3).map { _ in
                try WorkerProcess(
                    f.command, ["worker", "--drain", "--concurrency", "2", "--lease", "10"],
                    environment: ["DATABASE_URL": pooled, "DARKROOM_LISTEN_URL": f.url])
            }
            for worker in workers { #expect(worker.wait(timeout: .seconds(600)) == 0, "\(worker.stderr.suffix(3000))") }
            let row = try f.connection.query(
                """
                SELECT count(*) FILTER (WHERE state = 'succeeded') AS succeeded, max(attempts) AS attempts,
                       (SELECT count(*) FROM darkroom.adjustments) AS results
                  FROM darkroom.jobs
                """)[0]
            #expect(row["succeeded"].int == jobs && row["attempts"].int == 1 && row["results"].int == jobs)
        }
    }
}

struct SoakSetupError: Error, CustomStringConvertible {
    var description: String
}
