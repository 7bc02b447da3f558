import ByteStreams
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import LibPQ
import Testing

/// Real worker processes against the real server, killed, signalled and cancelled mid-render.
/// The slow photo is big enough that a render takes seconds, so "mid-render" is not a race.
@Suite(.serialized) struct QueueFaultTests {
    static let slow = (width: 6000, height: 4000)
    /// A short lease so a dead worker's job comes back within seconds.
    static let lease = ["--lease", "3", "--poll-interval", "0.2", "--log-level", "info"]

    func waitUntilRendering(_ f: QueueFaultFixture, job: Int64, worker: WorkerProcess) throws {
        try f.waitUntil(
            "job \(job) is running on worker \(worker.pid)",
            "SELECT state = 'running' AND leased_by LIKE '%-' || $2 || '/%' FROM darkroom.jobs WHERE id = $1",
            [.int(job), .text(String(worker.pid))])
        // Mid-render, not merely claimed: the encoder has opened its temporary file.
        try waitUntil("worker \(worker.pid) is writing job \(job)'s render", timeout: .seconds(60)) {
            !((try? f.temporaryRenders()) ?? []).isEmpty
        }
    }

    @Test func killNineMidRenderTheJobCompletesElsewhereWithOneResult() throws {
        try QueueFaultFixture.with { f in
            let asset = try f.importPhoto(width: Self.slow.width, height: Self.slow.height)
            let job = try f.enqueue(asset)
            let doomed = try WorkerProcess(f.command, ["worker"] + Self.lease)
            try waitUntilRendering(f, job: job, worker: doomed)
            doomed.signal(SIGKILL)
            #expect(doomed.wait(timeout: .seconds(10)) != nil)
            #expect(try f.visibleRenders().isEmpty, "no render of the killed attempt is visible")

            // The lease runs out; the next worker's claim puts the job back and runs it.
            try f.waitUntil(
                "the dead worker's lease expired", "SELECT lease_expires_at < now() FROM darkroom.jobs WHERE id = $1",
                [.int(job)])
            let rescuer = try f.command.run(["worker", "--drain"] + Self.lease)
            #expect(rescuer.status == 0, "\(rescuer.stderr)")
            #expect(rescuer.stdout.contains("1 succeeded"))

            let row = try f.connection.query(
                """
                SELECT state, attempts, errors->0->>'code' AS first_error, (SELECT count(*) FROM darkroom.adjustments WHERE job_id = $1) AS results
                  FROM darkroom.jobs WHERE id = $1
                """, [.int(job)])[0]
            #expect(row["state"].string == "succeeded" && row["attempts"].int == 2)
            #expect(row["first_error"].string == "lease_expired")
            #expect(row["results"].int == 1)
            // Every visible file is this job's; the recorded one is a whole JPEG.
            let renders = try f.visibleRenders()
            #expect(renders.contains("renders/\(asset)/\(job).jpg"))
            #expect(renders.allSatisfy { $0.hasPrefix("renders/\(asset)/\(job).") }, "\(renders)")
            let recorded = try f.connection.query(
                "SELECT rendered_path, rendered_width FROM darkroom.adjustments WHERE job_id = $1", [.int(job)])[0]
            let decoder = try JPEGDecoder(
                source: FileSource(path: f.storage + "/" + (try recorded["rendered_path"].decode(String.self))))
            #expect(decoder.header.width == (try recorded["rendered_width"].decode(Int.self)))
            _ = try decoder.start()

            // The killed attempt's temporary file goes with the orphan cleanup; the result stays.
            let clean = try f.command.run(
                "job", "run", "clean-orphaned-renders", "--param", "min_age_minutes=0", "--jobs-dir", Self.jobsDir)
            #expect(clean.status == 0, "\(clean.stderr)")
            #expect(try f.temporaryRenders().isEmpty)
            #expect(try f.visibleRenders() == renders)
        }
    }

    @Test func sigtermWithoutGraceReleasesTheJobAndExitsZero() throws {
        try QueueFaultFixture.with { f in
            let job = try f.enqueue(try f.importPhoto(width: Self.slow.width, height: Self.slow.height))
            let worker = try WorkerProcess(f.command, ["worker", "--shutdown-grace", "0"] + Self.lease)
            try waitUntilRendering(f, job: job, worker: worker)
            worker.signal(SIGTERM)
            #expect(worker.wait(timeout: .seconds(20)) == 0, "\(worker.stderr)")
            #expect(worker.stdout.contains("1 released at shutdown"), "\(worker.stdout)")
            let row = try f.connection.query(
                "SELECT state, attempts, lease_token FROM darkroom.jobs WHERE id = $1", [.int(job)])[0]
            #expect(row["state"].string == "queued" && row["attempts"].int == 0 && row["lease_token"].isNull)
            #expect(
                try f.value("SELECT count(*) FROM darkroom.workers").int == 0, "a clean exit removes the worker's row")
            // Given back at once: another worker finishes it without waiting for a lease.
            let next = try f.command.run(["worker", "--drain"] + Self.lease)
            #expect(next.status == 0 && next.stdout.contains("1 succeeded"))
        }
    }

    @Test func sigtermWithGraceFinishesTheRunningJobAndExitsZero() throws {
        try QueueFaultFixture.with { f in
            let job = try f.enqueue(try f.importPhoto(width: Self.slow.width, height: Self.slow.height))
            let small = try f.importPhoto(width: 64, height: 48)
            // One slot per core by default: on two cores or more, a slot is idle while the job renders.
            // A generous grace: on a loaded machine the slow render can take over a minute.
            let worker = try WorkerProcess(f.command, ["worker", "--shutdown-grace", "300"] + Self.lease)
            try waitUntilRendering(f, job: job, worker: worker)
            worker.signal(SIGTERM)
            try waitUntil(
                "worker \(worker.pid) acknowledged SIGTERM", timeout: .seconds(10), diagnostics: { worker.stderr }
            ) {
                worker.stderr.contains("shutdown requested")
            }
            // Queued while the first job still renders: neither an idle slot nor the busy one takes it.
            let second = try f.enqueue(small)
            #expect(worker.wait(timeout: .seconds(320)) == 0, "\(worker.stderr)")
            #expect(try f.value("SELECT state FROM darkroom.jobs WHERE id = $1", [.int(job)]).string == "succeeded")
            #expect(
                try f.value("SELECT state FROM darkroom.jobs WHERE id = $1", [.int(second)]).string == "queued",
                "nothing is claimed after SIGTERM")
        }
    }

    @Test func cancellingARunningJobRecordsNothing() throws {
        try QueueFaultFixture.with { f in
            let job = try f.enqueue(try f.importPhoto(width: Self.slow.width, height: Self.slow.height))
            let worker = try WorkerProcess(f.command, ["worker", "--drain"] + Self.lease)
            try waitUntilRendering(f, job: job, worker: worker)
            let cancel = try f.command.run("cancel", String(job))
            #expect(cancel.status == 0 && cancel.stdout.contains("cancelled"), "\(cancel.stderr)")
            #expect(worker.wait(timeout: .seconds(60)) == 0, "a cancelled job is not a failure: \(worker.stderr)")
            #expect(worker.stdout.contains("1 cancelled"), "\(worker.stdout)")
            #expect(worker.stderr.contains("the job was cancelled"))
            #expect(try f.value("SELECT state FROM darkroom.jobs WHERE id = $1", [.int(job)]).string == "cancelled")
            #expect(try f.value("SELECT count(*) FROM darkroom.adjustments").int == 0)
        }
    }

    /// Jobs drained by 4 worker processes at once: every job succeeds exactly once.
    @Test func fourWorkerProcessesRunEachJobToCompletionOnce() throws {
        let jobs = ProcessInfo.processInfo.environment["DARKROOM_SOAK"] == "1" ? 5000 : 1000
        try QueueFaultFixture.with { f in
            let assets = try (0..<8).map { try f.importPhoto(width: 48, height: 32, seed: UInt8($0)) }
            _ = try f.connection.query(
                """
                INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data)
                SELECT ($1::bigint[])[1 + i % 8], 'io.darkroom.pipeline', '1.0.0', convert_to('{"operations":[{"op":"sepia"}]}', 'UTF8')
                  FROM generate_series(0, $2::int - 1) AS i
                """, [.text("{" + assets.map(String.init).joined(separator: ",") + "}"), .int(Int64(jobs))])
            let workers = try (0..<4).map { _ in
                try WorkerProcess(f.command, ["worker", "--drain", "--concurrency", "2"] + Self.lease)
            }
            for worker in workers { #expect(worker.wait(timeout: .seconds(600)) == 0, "\(worker.stderr.suffix(2000))") }
            let successes = workers.map { $0.stderr.components(separatedBy: "job succeeded").count - 1 }
            #expect(successes.reduce(0, +) == jobs, "each job ran to completion exactly once: \(successes)")
            #expect(successes.filter { $0 > 0 }.count >= 2, "the work was shared: \(successes)")
            let row = try f.connection.query(
                """
                SELECT count(*) FILTER (WHERE state = 'succeeded') AS succeeded, max(attempts) AS attempts,
                       (SELECT count(*) FROM darkroom.adjustments) AS results,
                       (SELECT count(DISTINCT job_id) FROM darkroom.adjustments) AS jobs_with_results
                  FROM darkroom.jobs
                """)[0]
            #expect(row["succeeded"].int == jobs && row["attempts"].int == 1)
            #expect(row["results"].int == jobs && row["jobs_with_results"].int == jobs)
        }
    }

    static var jobsDir: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Jobs").path
    }
}
