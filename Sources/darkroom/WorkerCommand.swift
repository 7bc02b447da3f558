import ArgumentParser
import DarkroomDatabase
import DarkroomImaging
import DarkroomMetricsEndpoint
import DarkroomWorker
import Foundation
import Logging
import ServiceLifecycle

extension Darkroom {
    struct Worker: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run edit jobs from the queue.",
            discussion: """
                With --drain, exits when no runnable job is left: 0 if every job it ran succeeded, 3 if some failed, \
                2 if it could not work at all. SIGTERM or SIGINT: stop claiming, let running jobs finish within \
                --shutdown-grace, release the rest to the queue, exit 0 (or 3 if jobs failed before).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup(title: "The metrics listener's limits on slow and greedy clients")
        var serverLimits: ServerLimitOptions

        @Flag(help: "Exit when no runnable job is left.") var drain = false
        @Flag(
            name: .customLong("apple-geometry-only"),
            help:
                "Render Apple Photos edits' crop, straighten and orientation even when they hold adjustments darkroom cannot reproduce (SmartTone, Effect…), recording a warning that names them; without it such jobs fail (apple_adjustment_unsupported)."
        )
        var appleGeometryOnly = false
        @Option(help: "keep: an original's HDR gain map goes through the edit into the render; drop: standard range.")
        var hdr: HDROutput = .keep
        @Option(
            name: .customLong("decoder-sandbox"),
            help:
                "on: each render runs in a child process that holds no credential, can open no file and makes only the system calls decoding needs, forked from a zygote (docs/hostile-input.md); fresh: the same, each child started afresh (its own address layout, about 40 ms more CPU a render); off: in the worker itself."
        )
        var decoderSandbox: SandboxSetting = .on
        @Option(
            help:
                "Jobs rendered at once (default: one per core). A job that starts while cores are idle gets a second thread for its JPEG encoder."
        )
        var concurrency: Int = WorkerOptions.defaultConcurrency
        @Option(
            name: .customLong("memory-budget"),
            help:
                "Memory all running renders share, e.g. 256MiB; a job is planned against all of it and waits until its price is free."
        )
        var memoryBudget: String = ByteCount.format(RenderLimits.defaultMemoryBudget)
        @Option(help: "JPEG quality of renders, 1–100 (4:4:4 chroma from 90 up).") var quality: Int = OutputEncoding
            .defaultQuality
        @Option(name: .customLong("max-duration"), help: "Stop claiming after this many seconds (or 30m, 6h).")
        var maxDuration: String?
        @Option(name: .customLong("poll-interval"), help: "Seconds between polls when no NOTIFY arrives.")
        var pollInterval: Double = 5
        @Option(
            help:
                "Seconds a claimed job stays ours without a heartbeat; a dead worker's jobs return to the queue after this."
        )
        var lease: Double = 60
        @Option(
            name: .customLong("shutdown-grace"),
            help: "On SIGTERM/SIGINT, seconds running jobs get to finish before they are released.")
        var shutdownGrace: Double = 30
        @Option(
            name: .customLong("listen-database-url"),
            help:
                "A direct PostgreSQL connection for LISTEN when --database-url goes through PgBouncer (default: $DARKROOM_LISTEN_URL, else the file $DARKROOM_LISTEN_URL_FILE names, else the database URL)."
        )
        var listenDatabaseURL: String?
        @Option(
            name: .customLong("metrics-listen"),
            help:
                "Serve /metrics (Prometheus text format) and /healthz on host:port, e.g. 0.0.0.0:9464 (default: no listener)."
        )
        var metricsListen: String?

        func validate() throws {
            guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be 1…64") }
            try RenderOptionBounds.check(quality: quality)
            guard ByteCount.parse(memoryBudget) != nil else {
                throw ValidationError("--memory-budget: cannot read \"\(memoryBudget)\"; write e.g. 64MiB or 1GiB")
            }
            if let maxDuration, DurationText.parse(maxDuration) == nil {
                throw ValidationError("--max-duration: cannot read \"\(maxDuration)\"; write e.g. 3600, 30m or 6h")
            }
            guard pollInterval > 0 else { throw ValidationError("--poll-interval must be positive") }
            guard (0...3600).contains(shutdownGrace) else {
                throw ValidationError("--shutdown-grace must be 0…3600 seconds")
            }
            if let metricsListen, ListenAddress(metricsListen) == nil {
                throw ValidationError("--metrics-listen: write host:port, e.g. 0.0.0.0:9464")
            }
        }

        func run() async throws {
            var options: WorkerOptions?
            try withExitCodes {
                let databaseURL = try global.resolvedDatabaseURL()
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                if let problem = try JobQueue(connection, logger: global.makeLogger()).leaseProblem(.seconds(lease)) {
                    throw CommandFailure.invalidInput("--lease: \(problem)")
                }
                let listenURL = try GlobalOptions.databaseURL(
                    flag: listenDatabaseURL, flagName: "--listen-database-url", variable: "DARKROOM_LISTEN_URL")
                options = WorkerOptions(
                    databaseURL: databaseURL, listenURL: listenURL, storage: try Environment.storage(global),
                    concurrency: concurrency, drain: drain, memoryBudget: ByteCount.parse(memoryBudget)!,
                    quality: quality,
                    lease: .seconds(lease), pollInterval: .seconds(pollInterval),
                    maxDuration: maxDuration.flatMap(DurationText.parse), shutdownGrace: .seconds(shutdownGrace))
                options?.appleGeometryOnly = appleGeometryOnly
                options?.hdr = hdr
                options?.sandbox = try decoderSandbox.checked()
            }
            guard let options else { return }
            let logger = global.makeLogger()
            MetricsSetup.bootstrapOnce()
            var companions: [any Service] = []
            if let address = metricsListen.flatMap(ListenAddress.init) {
                companions.append(
                    MetricsServer.service(listeningOn: address, limits: serverLimits.limits, logger: logger) { port in
                        var bound = address
                        bound.port = port
                        logger.info("metrics at http://\(bound)/metrics")
                    })
            }
            let summary: WorkerSummary
            do {
                summary = try await WorkerService.runUntilDoneOrSignalled(
                    DarkroomWorker.Worker(options: options, logger: logger),
                    companions: companions, logger: logger)
            } catch  where !companions.isEmpty {
                try withExitCodes {
                    throw CommandFailure.cannotWork(
                        "cannot serve metrics on \(metricsListen ?? "") (--metrics-listen): \(error)")
                }
                return
            }
            print(summary)
            try withExitCodes {
                if summary.exitCode != 0 { throw CommandFailure.exit(summary.exitCode) }
            }
        }
    }
}

/// "90", "90s", "30m", "6h" → a duration.
enum DurationText {
    static func parse(_ text: String) -> Duration? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        var number = Substring(text)
        var multiplier = 1.0
        if let last = text.last, let unit = units[last] {
            number = number.dropLast()
            multiplier = unit
        }
        guard let value = Double(number), value > 0 else { return nil }
        return .milliseconds(Int(value * multiplier * 1000))
    }
}

/// `worker`, `serve`, `import` and `render --decoder-sandbox on|fresh|off`.
enum SandboxSetting: String, ExpressibleByArgument, CaseIterable {
    case on, fresh, off

    /// The sandbox this setting asks for, checked to work here (nil for `off`): a kernel
    /// without seccomp stops the command before it serves anything.
    func checked() throws -> DarkroomWorker.DecoderSandbox? {
        guard self != .off else { return nil }
        let sandbox = DarkroomWorker.DecoderSandbox(start: self == .fresh ? .fresh : .zygote)
        do {
            try sandbox.check()
        } catch {
            throw CommandFailure.cannotWork(
                "the decoders' sandbox does not work here: \(error); a kernel without seccomp needs "
                    + "--decoder-sandbox off (docs/hostile-input.md says what that gives up)")
        }
        return sandbox
    }
}
