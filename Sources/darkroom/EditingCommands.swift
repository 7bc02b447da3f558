import ArgumentParser
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import Foundation

extension Darkroom {
    struct Revert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue a revert of an asset to its original, or of its last layer only; prints the job id.",
            discussion: """
                The same as SELECT darkroom.enqueue_revert(asset_id, last_only). It runs after the asset's queued \
                jobs of the same or higher priority. --last removes the top layer of the asset's chain and re-renders the layers beneath it.
                """)
        @OptionGroup var global: GlobalOptions
        @Option(help: "The asset to revert.") var asset: Int64
        @Flag(help: "Remove only the last layer of the chain.") var last = false
        @Option(help: "Higher runs first.") var priority: Int = 0

        func run() throws {
            try withExitCodes {
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                try JobControl.refusals {
                    print(
                        try JobQueue(connection, logger: global.makeLogger())
                            .enqueueRevert(assetID: asset, lastOnly: last, priority: priority))
                }
            }
        }
    }

    struct Rerender: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue re-renders after an upgrade: of an editor, of a filter, or of darkroom itself (--stale).",
            discussion: """
                --format-identifier ID [--below-version V]: the same as SELECT darkroom.enqueue_rerender(\
                format_identifier, below_version, priority, batch), one INSERT ... SELECT skipping assets with the \
                same re-render already queued; workers replay each chain and write every layer at its editor's \
                current version, and only workers writing at least V take the jobs. \
                --filter NAME --below-version V: every asset whose current chain uses NAME below V in any layer is \
                re-rendered with NAME at its newest version (SELECT * FROM darkroom.enqueue_filter_rerender(name, \
                below_version, sample, max_jobs, priority, batch)); --dry-run prints how many assets show each older \
                version and queues nothing; --sample N queues a canary of N (the same N on every run, spread over \
                the library) in batch filter-NAME-VERSION-sample; run again without --sample to queue the rest; \
                --chunk B queues at most B jobs per transaction, calling until all are queued. \
                --stale: every asset whose current chain was rendered with older render math or other output \
                settings than this build's (with --quality as the workers run), or whose renditions are not the \
                current ones (darkroom rendition list), \
                SELECT darkroom.enqueue_stale_rerender(build, priority, batch); --dry-run prints counts by reason. \
                Follow a roll-out with `darkroom status --batch NAME --follow`.
                """)
        @OptionGroup var global: GlobalOptions
        @Option(
            name: .customLong("format-identifier"), help: "The upgraded editor's format, e.g. io.darkroom.pipeline.")
        var formatIdentifier: String?
        @Option(help: "The upgraded filter's name (with --below-version).") var filter: String?
        @Flag(help: "Re-render what was rendered with older math or other output settings than this build.")
        var stale = false
        @Option(
            name: .customLong("below-version"), help: "Only chains with a layer older than this version, e.g. 1.1.0.")
        var belowVersion: String?
        @Flag(name: .customLong("dry-run"), help: "With --filter or --stale: print how many; queue nothing.")
        var dryRun = false
        @Option(help: "With --filter: queue a canary of this many assets.") var sample: Int?
        @Option(help: "With --filter: queue at most this many jobs per transaction.") var chunk: Int?
        @Option(help: "With --stale: the workers' JPEG quality.") var quality: Int = OutputEncoding.defaultQuality
        @Option(help: "The jobs' batch (default: rerender-<format>-<UTC time>, filter-<name>-<version>[-sample]).")
        var batch: String?
        @Option(help: "Higher runs first; the default keeps interactive edits (0) ahead.") var priority: Int = -20

        func validate() throws {
            if let belowVersion, SemanticVersion(belowVersion) == nil {
                throw ValidationError("--below-version \(belowVersion) is not a semantic version such as 1.1.0")
            }
            switch [formatIdentifier != nil, filter != nil, stale].filter({ $0 }).count {
            case 0:
                throw ValidationError(
                    "name what was upgraded: --format-identifier ID, --filter NAME or --stale (darkroom itself)")
            case 1: break
            default: throw ValidationError("--format-identifier, --filter and --stale are three upgrades; give one")
            }
            if filter != nil, belowVersion == nil {
                throw ValidationError(
                    "--filter needs --below-version V: assets showing the filter below V are re-rendered")
            }
            if formatIdentifier != nil, dryRun {
                throw ValidationError("--dry-run goes with --filter NAME --below-version V or --stale")
            }
            if filter == nil, sample != nil || chunk != nil {
                throw ValidationError("--sample and --chunk go with --filter NAME --below-version V")
            }
            if stale, belowVersion != nil { throw ValidationError("--stale takes no --below-version") }
            if let sample, sample < 1 { throw ValidationError("--sample must be 1 or more") }
            if let chunk, chunk < 1 { throw ValidationError("--chunk must be 1 or more") }
            try RenderOptionBounds.check(quality: quality)
        }

        func run() throws {
            try withExitCodes {
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                if let filter, let belowVersion {
                    try upgrade(filter, below: belowVersion, on: connection)
                    return
                }
                if stale {
                    let build = RenderBuild(quality: quality).json
                    if dryRun {
                        print(Self.staleReport(try StaleRenders(connection).counts(build: build)))
                        return
                    }
                    let name = batch ?? Self.defaultBatch("stale", at: Date())
                    try JobControl.refusals {
                        Self.printQueued(
                            try StaleRenders(connection).enqueue(build: build, priority: priority, batch: name),
                            batch: name)
                    }
                    return
                }
                guard let formatIdentifier else { return }  // validate() requires one of the three
                let name = batch ?? Self.defaultBatch(formatIdentifier, at: Date())
                try JobControl.refusals {
                    Self.printQueued(
                        try JobQueue(connection, logger: global.makeLogger()).enqueueRerender(
                            formatIdentifier: formatIdentifier, belowVersion: belowVersion, priority: priority,
                            batch: name),
                        batch: name)
                }
            }
        }

        /// A filter upgrade: the dry run, or calls of enqueue_filter_rerender until everything
        /// (or the sample) is queued, each call one transaction of at most --chunk jobs.
        private func upgrade(_ filter: String, below: String, on connection: DatabaseConnection) throws {
            let catalog = FilterCatalog(connection)
            if dryRun {
                let counts = try Self.refusals { try catalog.upgradeCounts(name: filter, belowVersion: below) }
                print(FilterReport.upgrade(counts, filter: filter, below: below))
                return
            }
            var total = 0
            var last: FilterUpgradeQueued? = nil
            while true {
                let remaining: Int? = sample.map { $0 - total }
                let named = last?.batch ?? batch
                let step = try Self.refusals {
                    try catalog.enqueueUpgrade(
                        name: filter, belowVersion: below, sample: remaining, maxJobs: chunk, priority: priority,
                        batch: named)
                }
                total += step.queued
                last = step
                if !Self.moreToQueue(queued: step.queued, chunk: chunk, remaining: remaining) { break }
            }
            guard let last else { return }
            print(
                "queued \(total) re-render job(s) bringing \(filter) to \(last.version) in batch \(last.batch)"
                    + (sample == nil ? "" : " (a sample; run again without --sample for the rest)"))
            if total > 0 { print("follow it with: darkroom status --batch \(last.batch) --follow") }
        }

        /// The catalogue's refusals are bad input (exit 1); a lost database stays what it is.
        static func refusals<Value>(_ body: () throws -> Value) throws -> Value {
            do {
                return try body()
            } catch let error as FilterCatalogError where error.code != .database {
                throw CommandFailure.invalidInput("rerender --filter refused: \(error)")
            }
        }

        /// A call that filled its chunk may have left more to queue, unless the sample is complete.
        static func moreToQueue(queued: Int, chunk: Int?, remaining: Int?) -> Bool {
            guard let chunk, queued == chunk else { return false }
            guard let remaining else { return true }
            return remaining > queued
        }

        static func printQueued(_ queued: Int, batch: String) {
            print("queued \(queued) re-render job(s) in batch \(batch)")
            if queued > 0 { print("follow it with: darkroom status --batch \(batch) --follow") }
        }

        /// `rerender --stale --dry-run`: one line per reason, then the total.
        static func staleReport(_ counts: [StaleCount]) -> String {
            let total = counts.first { $0.reason == "any" }?.assets ?? 0
            guard total > 0 else { return "no asset is stale against this build; nothing to re-render" }
            let reasons = [
                "math": "rendered with older render math", "output": "rendered with other output settings",
                "unrecorded": "rendered before records said what made them",
                "rendition":
                    "without every current rendition at its current version (darkroom rendition list); "
                    + "where nothing else is stale, a renditions job writes only those, from the stored render",
            ]
            return counts.filter { $0.reason != "any" }.map {
                "\($0.reason)\t\($0.assets) asset(s) \(reasons[$0.reason] ?? "")"
            }.joined(separator: "\n") + "\nstale\t\(total) asset(s) would be re-rendered\ndry run: nothing queued"
        }

        static func defaultBatch(_ identifier: String, at date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
            return "rerender-\(identifier)-\(formatter.string(from: date))"
        }
    }

    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an asset's current chain of layers and how its look changed.",
            discussion: "Reads darkroom.asset_history and darkroom.adjustments (both append-only).")
        @OptionGroup var global: GlobalOptions
        @Option(help: "The asset.") var asset: Int64

        func run() throws {
            try withExitCodes {
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                let store = AssetStore(connection)
                guard let found = try store.asset(id: asset) else {
                    throw CommandFailure.invalidInput(
                        "asset \(asset) does not exist; existing ids are in darkroom.assets")
                }
                let adjustments = try store.adjustments(of: asset)
                print(
                    HistoryReport(
                        asset: found, chain: try store.currentChain(of: asset), adjustments: adjustments,
                        history: try store.history(of: asset)
                    ).text)
            }
        }
    }
}

extension JobControl {
    /// Refusals by the SQL API are bad input (exit 1): the queue's named errors, then what `sql` maps.
    static func refusals(_ body: () throws -> Void) throws {
        do {
            try sql(body)
        } catch let error as QueueError {
            throw CommandFailure.invalidInput(error.description)
        }
    }
}
