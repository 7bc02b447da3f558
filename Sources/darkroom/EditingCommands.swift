import ArgumentParser
import DarkroomAdjustments
import DarkroomDatabase
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
            abstract: "After an editor upgrade, queue a re-render of every asset whose current chain uses a format.",
            discussion: """
                The same as SELECT darkroom.enqueue_rerender(format_identifier, below_version, priority, batch): one \
                INSERT ... SELECT, skipping assets with the same re-render already queued. Workers replay each chain \
                from the original and write every layer at its editor's current version; with --below-version, only \
                workers that write at least that version take the jobs, so a rolling upgrade is safe. Follow it with \
                `darkroom status --batch NAME --follow`. After a filter upgrade, --filter NAME --below-version V \
                --dry-run prints how many assets show each older version in any layer of their current chain \
                (SELECT * FROM darkroom.filter_rerender_counts(name, below_version)) and queues nothing.
                """)
        @OptionGroup var global: GlobalOptions
        @Option(
            name: .customLong("format-identifier"), help: "The upgraded editor's format, e.g. io.darkroom.pipeline.")
        var formatIdentifier: String?
        @Option(help: "The upgraded filter's name (with --below-version and --dry-run).") var filter: String?
        @Option(
            name: .customLong("below-version"), help: "Only chains with a layer older than this version, e.g. 1.1.0.")
        var belowVersion: String?
        @Flag(name: .customLong("dry-run"), help: "With --filter: print how many assets per version; queue nothing.")
        var dryRun = false
        @Option(help: "The jobs' batch (default: rerender-<format>-<UTC time>).") var batch: String?
        @Option(help: "Higher runs first; the default keeps interactive edits (0) ahead.") var priority: Int = -20

        func validate() throws {
            if let belowVersion, SemanticVersion(belowVersion) == nil {
                throw ValidationError("--below-version \(belowVersion) is not a semantic version such as 1.1.0")
            }
            switch (formatIdentifier, filter) {
            case (nil, nil): throw ValidationError("name what was upgraded: --format-identifier ID or --filter NAME")
            case (.some, .some): throw ValidationError("--format-identifier and --filter are two upgrades; give one")
            case (.some, nil) where dryRun: throw ValidationError("--dry-run goes with --filter NAME --below-version V")
            case (nil, .some) where belowVersion == nil:
                throw ValidationError(
                    "--filter needs --below-version V: the version the upgrade replaces older ones with")
            case (nil, .some) where !dryRun:
                throw ValidationError("--filter queues nothing yet: add --dry-run to see what an upgrade would reach")
            default: break
            }
        }

        func run() throws {
            try withExitCodes {
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                if let filter, let belowVersion {
                    let counts: [FilterUpgradeCount]
                    do {
                        counts = try FilterCatalog(connection).upgradeCounts(name: filter, belowVersion: belowVersion)
                    } catch let error as FilterCatalogError where error.code != .database {
                        throw CommandFailure.invalidInput("rerender --filter refused: \(error)")
                    }
                    print(FilterReport.upgrade(counts, filter: filter, below: belowVersion))
                    return
                }
                guard let formatIdentifier else { return }  // validate() requires one of the two
                let name = batch ?? Self.defaultBatch(formatIdentifier, at: Date())
                try JobControl.refusals {
                    let queued = try JobQueue(connection, logger: global.makeLogger()).enqueueRerender(
                        formatIdentifier: formatIdentifier, belowVersion: belowVersion, priority: priority, batch: name)
                    print("queued \(queued) re-render job(s) in batch \(name)")
                    if queued > 0 { print("follow it with: darkroom status --batch \(name) --follow") }
                }
            }
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
