import DarkroomDatabase
import DarkroomImport
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import LibPQ
import Logging
import ProcessSandbox
import Testing
import Timing

@testable import DarkroomWorker

/// Renders in the decoders' sandbox (`worker --decoder-sandbox on`, the default) against
/// renders in the worker's own process: the same bytes in every file, the same records and the
/// same failures, through the real executable; and a child that crashes, breaks the channel's
/// rules or is killed fails its job (for good, or to be retried), never the worker.
@Suite(.serialized) struct SandboxedRenderTests {
    static let photos = [
        Fixtures.exifSample("Canon_40D.jpg").path,
        Fixtures.root.appendingPathComponent("corpus/osxphotos/IMG_1853.HEIC").path,
        Fixtures.root.appendingPathComponent("gainmaps/apple_gainmap_new.jpg").path,
        Fixtures.exifSample("orientation/landscape_6.jpg").path,
    ]

    /// What a library holds after the same work: every stored render's bytes by path, each
    /// job's state and error, each record's provenance.
    struct Library: Equatable {
        var files: [String: Data]
        var jobs: [String]
        var records: [String]
    }

    /// Imports `photos`, defines renditions, queues edits (a filter, a turn and crop that spills
    /// to a scratch file at this budget, a damaged original's), drains with `sandbox`; then adds a rendition and drains the renditions jobs
    /// `rerender --stale` queues.
    static func work(sandbox: String) throws -> Library {
        try DarkroomCommand.withMigratedLibrary("sandbox-\(sandbox)") { command in
            let imported = try command.run(["import"] + photos)
            try #require(imported.status == 0, "\(imported.stderr)")
            for definition in [
                ["thumb", "--format", "webp", "--longest-side", "320"],
                ["preview", "--format", "avif", "--longest-side", "1024", "--hdr", "keep"],
            ] {
                try #require(try command.run(["rendition", "add"] + definition).status == 0)
            }
            try #require(
                try command.run("filter", "add", "dusk", "1.0.0", Fixtures.lut("obs-grayscale.cube")).status == 0)
            let connection = try DatabaseConnection(command.databaseURL)
            func enqueue(_ asset: Int, _ json: String) throws {
                _ = try connection.query(
                    "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::jsonb)",
                    [.int(Int64(asset)), .text(json)])
            }
            try enqueue(1, #"{"operations":[{"op":"filter","name":"dusk","intensity":0.7}]}"#)
            try enqueue(
                2,
                #"{"operations":[{"op":"rotate","degrees":7},{"op":"crop","x":100,"y":200,"width":2000,"height":1500}]}"#
            )
            try enqueue(3, #"{"operations":[{"op":"sepia","intensity":0.5}]}"#)
            try enqueue(4, #"{"operations":[{"op":"exposure","ev":0.5}]}"#)
            // A damaged original (cut in half after import) fails the same way in both.
            let damaged = try connection.query("SELECT original_path FROM darkroom.assets WHERE id = 4")[0][
                "original_path"
            ].decode(String.self)
            let path = command.storage + "/" + damaged
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))

            let drained = try command.run("worker", "--drain", "--decoder-sandbox", sandbox, "--memory-budget", "84MiB")
            #expect(drained.status == 3, "\(drained.stderr)")
            try #require(
                try command.run("rendition", "add", "share", "--format", "jpeg", "--longest-side", "600").status == 0)
            try #require(try command.run("rerender", "--stale").status == 0)
            let renditions = try command.run("worker", "--drain", "--decoder-sandbox", sandbox)
            #expect(renditions.status == 0, "\(renditions.stderr)")

            var files: [String: Data] = [:]
            let renders = command.storage + "/renders"
            for path in FileManager.default.subpaths(atPath: renders) ?? [] {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: renders + "/" + path, isDirectory: &isFolder),
                    !isFolder.boolValue
                {
                    files[path] = try Data(contentsOf: URL(fileURLWithPath: renders + "/" + path))
                }
            }
            let jobs = try connection.query(
                "SELECT kind || ' ' || state || ' ' || coalesce(last_error, '') AS line FROM darkroom.jobs ORDER BY id"
            ).map { try $0["line"].decode(String.self) }
            let records = try connection.query(
                "SELECT coalesce(rendered_with::text, '') || ' ' || coalesce(warnings::text, '') AS line "
                    + "FROM darkroom.adjustments ORDER BY id"
            ).map { try $0["line"].decode(String.self) }
            return Library(files: files, jobs: jobs, records: records)
        }
    }

    @Test func aSandboxedWorkerWritesWhatAnUnsandboxedOneWrites() throws {
        let sandboxed = try Self.work(sandbox: "on")
        let inProcess = try Self.work(sandbox: "off")
        // Children exec'd afresh instead of forked by the zygote: the same again.
        #expect(try Self.work(sandbox: "fresh") == sandboxed)
        // 3 edits with 3 renditions and the full render, then the share copy of each: 15 files.
        #expect(sandboxed.files.count == 15, "\(sandboxed.files.keys.sorted()) \(sandboxed.jobs)")
        #expect(sandboxed.files.keys.sorted() == inProcess.files.keys.sorted())
        for (path, bytes) in sandboxed.files { #expect(inProcess.files[path] == bytes, "\(path) differs") }
        #expect(sandboxed.jobs == inProcess.jobs)
        #expect(sandboxed.jobs.contains { $0.hasPrefix("edit failed jpeg_damaged: originals/") }, "\(sandboxed.jobs)")
        #expect(sandboxed.jobs.filter { $0.hasPrefix("renditions succeeded") }.count == 3, "\(sandboxed.jobs)")
        #expect(sandboxed.records.count == inProcess.records.count)
        for (left, right) in zip(sandboxed.records, inProcess.records) { #expect(left == right) }
        #expect(sandboxed.records.contains { $0.contains("\"filters\": [{\"name\": \"dusk\"") }, "\(sandboxed.records)")
    }

    /// A child that is not what the worker started it as: a script standing in for the
    /// executable, so the crash, the broken rule or the kill is real.
    static func withStandIn(_ script: String, _ body: (DecoderSandbox) throws -> Void) throws {
        let path = NSTemporaryDirectory() + "darkroom-standin-" + UUID().uuidString
        try Data(("#!/bin/sh\n[ \"$1\" = ready ] && exit 0\n" + script + "\n").utf8).write(
            to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        chmod(path, 0o755)
        try waitUntilItStarts(path)
        try body(DecoderSandbox(executable: path, start: .fresh))
    }

    /// A process another test forked while the script was open for writing holds it open until
    /// that process execs, and starting the script until then fails with ETXTBSY: once one run
    /// has started, none can hold it.
    static func waitUntilItStarts(_ path: String) throws {
        for _ in 0..<200 {
            do {
                _ = try SandboxedProcess(executable: path, arguments: ["ready"], maxPayload: 1).wait()
                return
            } catch {
                guard error.systemErrno == ETXTBSY else { throw error }
                usleep(5_000)
            }
        }
    }

    /// Two edits of a real photo drained by an in-process worker whose renders run in `sandbox`:
    /// each job's state and error, and the worker's summary.
    static func drain(with sandbox: DecoderSandbox) throws -> (jobs: [(String, String)], summary: WorkerSummary) {
        try TestDatabase.withFreshDatabase { url in
            let root = NSTemporaryDirectory() + "darkroom-sandbox-faults-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: root) }
            let storage = try StorageRoot.create(root + "/storage")
            let connection = try DatabaseConnection(url)
            _ = try Migrator().migrate(on: connection, logger: Logger(label: "migrate"))
            let importer = Importer(storage: storage, connection: connection, logger: Logger(label: "import"))
            _ = try importer.importFile(photos[0])
            for _ in 0..<2 {
                _ = try connection.query(
                    "SELECT darkroom.enqueue_edit(1, 'io.darkroom.pipeline', '1.0.0', '{\"operations\":[]}'::jsonb)")
            }
            var options = WorkerOptions(databaseURL: url, storage: storage, drain: true, workerName: "sandbox-faults")
            options.sandbox = sandbox
            options.retryBackoff = Backoff(first: .seconds(3600), limit: .seconds(3600), jitter: 0)
            var logger = Logger(label: "sandbox-faults")
            logger.logLevel = .critical
            let summary = Worker(options: options, logger: logger).run()
            let jobs = try connection.query(
                "SELECT state, coalesce(last_error, '') AS error FROM darkroom.jobs ORDER BY id"
            ).map { (try $0["state"].decode(String.self), try $0["error"].decode(String.self)) }
            return (jobs, summary)
        }
    }

    @Test func aChildThatCrashesFailsItsJobForGoodAndTheWorkerGoesOn() throws {
        try Self.withStandIn("kill -SEGV $$") { sandbox in
            let drained = try Self.drain(with: sandbox)
            #expect(drained.summary.failed == 2)
            for (state, error) in drained.jobs {
                #expect(state == "failed")
                #expect(
                    error.hasPrefix("decoder_crashed: originals/") && error.contains("killed by SIGSEGV"), "\(error)")
            }
        }
    }

    /// The filter's own report reaches the job: which call the child was stopped at.
    @Test func aForbiddenCallFailsItsJobNamingTheCall() throws {
        let probe = DarkroomCommand.executable.deletingLastPathComponent().appendingPathComponent("SandboxProbe").path
        try Self.withStandIn("exec '\(probe)' socket") { sandbox in
            let drained = try Self.drain(with: sandbox)
            #expect(drained.summary.failed == 2)
            for (state, error) in drained.jobs {
                #expect(state == "failed")
                #expect(error.hasPrefix("decoder_forbidden_call: originals/"), "\(error)")
                #expect(
                    error.contains("made system call \(SandboxFilterCalls.socket), which its sandbox forbids"),
                    "\(error)")
            }
        }
    }

    /// A frame announcing 4 GiB: refused from its header, the child ended, the job failed for good.
    @Test func aChildThatBreaksTheChannelsRulesFailsItsJob() throws {
        try Self.withStandIn(#"printf '\377\377\377\377\000\000\000\000\033' >&0; sleep 30"#) { sandbox in
            let drained = try Self.drain(with: sandbox)
            for (state, error) in drained.jobs {
                #expect(state == "failed")
                #expect(
                    error.hasPrefix("sandbox_failed: originals/") && error.contains("broke the channel's rules"),
                    "\(error)")
            }
        }
    }

    /// SIGKILL from outside (the kernel's out-of-memory killer) says nothing about the photo: retried.
    @Test func aChildKilledFromOutsideIsRetried() throws {
        try Self.withStandIn("kill -KILL $$") { sandbox in
            let drained = try Self.drain(with: sandbox)
            // The asset's second edit waits behind its first, which waits for its retry.
            #expect(drained.summary.retried == 1)
            let (state, error) = try #require(drained.jobs.first)
            #expect(state == "queued")
            #expect(error.hasPrefix("sandbox_failed: originals/") && error.contains("SIGKILL"), "\(error)")
        }
    }

    /// The zygote killed between renders (by the out-of-memory killer, say) is started again at
    /// the next render, and every render still gets a channel of its own.
    @Test func aZygoteKilledBetweenRendersIsStartedAgain() throws {
        let sandbox = DecoderSandbox(executable: DarkroomCommand.executable.path)
        try sandbox.check()
        // This sandbox's own zygote: other suites start theirs in this process at the same time.
        let first = try #require(sandbox.zygotePID)
        #expect(Self.zygotes().contains(first))
        kill(first, SIGKILL)
        let drained = try Self.drain(with: sandbox)
        #expect(drained.summary.succeeded == 2)
        let second = try #require(sandbox.zygotePID)
        #expect(second != first && Self.zygotes().contains(second) && !Self.zygotes().contains(first))
    }

    /// This process's children that serve as zygotes (a killed one, not yet reaped, has no
    /// command line).
    static func zygotes() -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(pid_t.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")"),
                let parent = stat[stat.index(after: close)...].split(separator: " ").dropFirst().first.flatMap({
                    pid_t($0)
                }),
                parent == getpid(),
                let line = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
            else { return false }
            return line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.suffix(2) == [
                DecoderSandbox.command, DecoderSandbox.zygoteArgument,
            ]
        }
    }

    /// A worker checks its sandbox before it claims a job.
    @Test func theCheckPassesForTheRealChildAndFailsForAnotherProgram() throws {
        for start in DecoderSandbox.Start.allCases {
            try DecoderSandbox(executable: DarkroomCommand.executable.path, start: start).check()
        }
        try Self.withStandIn("exit 0") { sandbox in
            #expect(throws: (any Error).self) { try sandbox.check() }
        }
    }
}

/// System call numbers (`<asm/unistd.h>`, which Swift does not import).
enum SandboxFilterCalls {
    #if arch(x86_64)
        static let socket = 41
    #else
        static let socket = 198
    #endif
}
