import DarkroomDatabase
import DarkroomOperatorScripts
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// The shipped `Jobs/` files run against the real server, as `darkroom job run` runs them.
@Suite("Running operator scripts")
struct OperatorScriptRunTests {
    static let jobs: [String: OperatorScript] = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Jobs").path
        let loaded = (try? OperatorScriptCatalog.load(from: folder)) ?? []
        return Dictionary(uniqueKeysWithValues: loaded.map { ($0.name, $0) })
    }()

    /// Gives each asset one finished pipeline edit at `version`.
    func edit(_ assets: [Int64], version: String, queue: JobQueue) throws {
        for asset in assets {
            _ = try queue.enqueue(
                assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: version, data: sampleData)
            let job = try #require(try queue.claim(workerID: "setup", limit: 1, lease: .seconds(60)).first)
            _ = try queue.complete(job, with: sampleAdjustment(for: job))
        }
    }

    @Test func rerenderFormatQueuesTheAffectedAssetsOnce() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let job = try #require(Self.jobs["rerender-format"])
            let assets = try (1...4).map { try registerAsset($0, on: connection) }
            try edit(Array(assets[0..<2]), version: "1.0", queue: queue)
            try edit([assets[2]], version: "1.1.0", queue: queue)
            let runner = OperatorScriptRunner(connection, logger: .quiet)
            let report = try runner.run(
                job, parameters: ["format_identifier": "io.darkroom.pipeline", "below_version": "1.1.0"])
            #expect(report.columns == ["queued"] && report.rows == [["2"]])
            #expect(
                try runner.run(
                    job, parameters: ["format_identifier": "io.darkroom.pipeline", "below_version": "1.1.0"]
                ).rows == [["0"]])
            let queued = try connection.query(
                """
                SELECT asset_id, format_version, priority, batch FROM darkroom.jobs WHERE kind = 'rerender' ORDER BY asset_id
                """
            ).map {
                "\($0["asset_id"].int64!) \($0["format_version"].string!) \($0["priority"].int!) \($0["batch"].string!)"
            }
            #expect(queued == ["\(assets[0]) 1.1.0 -20 rerender", "\(assets[1]) 1.1.0 -20 rerender"])
            // Without below_version: every chain with the format, under its own target (none).
            #expect(
                try runner.run(job, parameters: ["format_identifier": "io.darkroom.pipeline", "batch": "all"]).rows == [
                    ["3"]
                ])
            let refused = #expect(throws: DatabaseError.self) {
                try runner.run(job, parameters: ["format_identifier": "io.darkroom.pipeline", "below_version": "1.x"])
            }
            #expect(refused?.message.contains("not a semantic version") == true, "\(refused?.message ?? "")")
            let runs = try connection.query("SELECT status FROM darkroom.job_runs ORDER BY id").map {
                $0["status"].string!
            }
            #expect(runs == ["succeeded", "succeeded", "succeeded", "failed"])
        }
    }

    @Test func nightlyQueuesWhatChangedSinceItsLastSuccessfulRun() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let job = try #require(Self.jobs["nightly"])
            let assets = try (1...3).map { try registerAsset($0, on: connection) }
            try edit(Array(assets[0..<2]), version: "1.0.0", queue: queue)
            let runner = OperatorScriptRunner(connection, logger: .quiet)
            let first = try runner.run(job, parameters: [:])
            #expect(
                first.rows.map { $0[0] } == assets[0..<2].map { String($0) }, "every edited asset on the first night")
            let batch = try #require(
                try scalar(connection, "SELECT DISTINCT batch FROM darkroom.jobs WHERE kind = 'rerender'").string)
            #expect(batch.hasPrefix("nightly-"))
            // Finish the night's jobs, then edit one asset: only it comes up the next night.
            for claimed in try queue.claim(workerID: "night", limit: 10, lease: .seconds(60)) {
                try queue.complete(claimed, with: JobResult(.none(outcome: "test"), expectedCurrent: nil))
            }
            try edit([assets[2]], version: "1.0.0", queue: queue)
            let second = try runner.run(job, parameters: [:])
            #expect(second.rows.map { $0[0] } == [String(assets[2])])
            #expect(try runner.run(job, parameters: [:]).rows.isEmpty, "an asset with a job queued is skipped")
        }
    }
}
