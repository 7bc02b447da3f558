import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// Reverts, re-renders, per-asset order and multi-layer completions against the real server.
@Suite("Editing model in the queue")
struct EditingQueueTests {
    static let pipeline = [
        ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "0.0.0-0", maxVersion: "1.0.0")
    ]
    static let pipeline110 = [
        ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "0.0.0-0", maxVersion: "1.1.0")
    ]

    func layer(
        _ identifier: String = "io.darkroom.pipeline", _ version: String = "1.0.0", path: String,
        base: Int64? = nil, rerenderOf: Int64? = nil
    ) -> NewAdjustment {
        NewAdjustment(
            formatIdentifier: identifier, formatVersion: version, data: sampleData, baseAdjustmentID: base,
            renderedPath: path, renderedWidth: 64, renderedHeight: 48, renderedBytes: 100, rerenderOf: rerenderOf)
    }

    /// Gives `asset` a chain by completing edits one at a time; returns the adjustment ids, bottom first.
    func makeChain(_ queue: JobQueue, asset: Int64, formats: [(String, String)]) throws -> [Int64] {
        var ids: [Int64] = []
        for (identifier, version) in formats {
            _ = try queue.enqueue(
                assetID: asset, formatIdentifier: identifier, formatVersion: version, data: sampleData)
            let job = try #require(try queue.claim(workerID: "setup", limit: 1, lease: .seconds(60)).first)
            ids.append(
                try queue.complete(
                    job, with: layer(identifier, version, path: "renders/\(asset)/\(job.id).jpg", base: ids.last)))
        }
        return ids
    }

    @Test func jobsOfOneAssetRunOneAtATimeInOrderWhileOtherAssetsGoOn() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let (a, b) = (try registerAsset(1, on: connection), try registerAsset(2, on: connection))
            let first = try queue.enqueueSample(assetID: a)
            let second = try queue.enqueueSample(assetID: a)
            let other = try queue.enqueueSample(assetID: b)
            let claimed = try queue.claim(workerID: "w", limit: 10, lease: .seconds(60))
            #expect(claimed.map(\.id) == [first, other], "the second edit of asset a waits for the first")
            #expect(try queue.claim(workerID: "w", limit: 10, lease: .seconds(60)).isEmpty, "still running")
            _ = try queue.complete(claimed[0], with: sampleAdjustment(for: claimed[0]))
            #expect(try queue.claim(workerID: "w", limit: 10, lease: .seconds(60)).map(\.id) == [second])
        }
    }

    @Test func aHigherPriorityEditOfAnAssetGoesBeforeItsQueuedBatchJob() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            _ = try makeChain(queue, asset: asset, formats: [("io.darkroom.pipeline", "1.0.0")])
            #expect(try queue.enqueueRerender(formatIdentifier: "io.darkroom.pipeline", batch: "night") == 1)
            let interactive = try queue.enqueueSample(assetID: asset, priority: 10)
            let claimed = try queue.claim(workerID: "w", limit: 10, lease: .seconds(60))
            #expect(
                claimed.map(\.id) == [interactive],
                "the re-render waits behind the interactive edit, not the other way round")
        }
    }

    @Test func workersClaimOnlyTheReRendersTheirEditorsCanReach() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let (a, b, c) = (
                try registerAsset(1, on: connection), try registerAsset(2, on: connection),
                try registerAsset(3, on: connection)
            )
            for asset in [a, b, c] {
                _ = try makeChain(queue, asset: asset, formats: [("io.darkroom.pipeline", "1.0.0")])
            }
            _ = try connection.query(
                """
                INSERT INTO darkroom.jobs (asset_id, kind, format_identifier, format_version) VALUES ($1, 'rerender', 'io.darkroom.pipeline', '1.1.0');
                """, [.int(a)])
            _ = try connection.query("INSERT INTO darkroom.jobs (asset_id, kind) VALUES ($1, 'rerender')", [.int(b)])
            let revert = try queue.enqueueRevert(assetID: c)

            let old = try queue.claim(workerID: "old", limit: 10, lease: .seconds(60), formats: Self.pipeline)
            #expect(
                Set(old.map(\.assetID)) == [b, c],
                "a 1.0.0 worker takes the whole-chain re-render and the revert, not the 1.1.0 re-render")
            #expect(old.first { $0.id == revert }?.work == .revert)
            let new = try queue.claim(workerID: "new", limit: 10, lease: .seconds(60), formats: Self.pipeline110)
            #expect(new.map(\.assetID) == [a])
            #expect(new.first?.work == .rerender(formatIdentifier: "io.darkroom.pipeline", targetVersion: "1.1.0"))
        }
    }

    @Test func enqueueRerenderFindsEveryChainUsingTheFormatInOneStatement() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            var assets: [Int64] = []
            for seed in 1...5 { assets.append(try registerAsset(seed, on: connection)) }
            _ = try makeChain(queue, asset: assets[0], formats: [("io.darkroom.pipeline", "1.0.0")])
            // The pipeline layer is beneath another editor's: still affected.
            _ = try makeChain(
                queue, asset: assets[1],
                formats: [("io.darkroom.pipeline", "1.0"), ("com.shinobicontrols.filster", "1.0")])
            // assets[2] is already new; assets[3] has another editor's edit only.
            _ = try makeChain(queue, asset: assets[2], formats: [("io.darkroom.pipeline", "1.1.0")])
            _ = try makeChain(queue, asset: assets[3], formats: [("com.shinobicontrols.filster", "1.0")])
            // assets[4] has no edit.
            #expect(
                try queue.enqueueRerender(
                    formatIdentifier: "io.darkroom.pipeline", belowVersion: "1.1.0", batch: "bump") == 2)
            let queued = try connection.query(
                """
                SELECT asset_id FROM darkroom.jobs WHERE kind = 'rerender' AND state = 'queued' AND batch = 'bump' ORDER BY asset_id
                """
            ).map { try $0["asset_id"].decode(Int64.self) }
            #expect(queued == [assets[0], assets[1]])
            #expect(
                try queue.enqueueRerender(
                    formatIdentifier: "io.darkroom.pipeline", belowVersion: "1.1.0", batch: "bump") == 0)
            #expect(
                try queue.enqueueRerender(formatIdentifier: "io.darkroom.pipeline", batch: "all") == 3,
                "without a version every chain with a pipeline layer, and a different re-render is not equivalent")
            let progress = try #require(try queue.progress(ofBatch: "bump"))
            #expect(progress.total == 2 && progress.queued == 2 && progress.done == 0 && !progress.isFinished)
        }
    }

    @Test(arguments: [
        ("io..pipeline", "1.0", "label 2 is empty"),
        ("io.darkroom.pipeline", "v1.1", "starts with \"v\""),
        ("io.darkroom.pipeline'; DROP TABLE darkroom.jobs; --", "1.0", "may contain only letters"),
    ])
    func enqueueRerenderRefusesBadInput(identifier: String, version: String, problem: String) throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let error = #expect(throws: QueueError.self) {
                try queue.enqueueRerender(formatIdentifier: identifier, belowVersion: version)
            }
            #expect(error?.description.contains(problem) == true, "\(error?.description ?? "")")
            let jobs = try scalar(connection, "SELECT count(*) FROM darkroom.jobs").decode(Int.self)
            #expect(jobs == 0)
        }
    }

    @Test func enqueueRevertRefusesUnknownAssetsAndAssetsWithNothingToRevert() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            #expect(throws: QueueError.self) { try queue.enqueueRevert(assetID: 999_999) }
            let nothing = #expect(throws: QueueError.self) { try queue.enqueueRevert(assetID: asset) }
            #expect(nothing?.description.contains("has no edits to revert") == true, "\(nothing?.description ?? "")")
            let priority = #expect(throws: QueueError.self) { try queue.enqueueRevert(assetID: asset, priority: 5000) }
            #expect(priority?.description.contains("priority must be between") == true)
            // An edit still queued is something to revert once it has run.
            _ = try queue.enqueueSample(assetID: asset)
            let revert = try queue.enqueueRevert(assetID: asset, lastOnly: true)
            #expect(try queue.job(id: revert)?.kind == "revert_last")
            #expect(try queue.job(id: revert)?.formatIdentifier == nil)
        }
    }

    @Test func aReplayRecordsEveryLayerAndOnlyTheTopIsTheJobsResult() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let store = AssetStore(connection)
            let asset = try registerAsset(1, on: connection)
            let old = try makeChain(
                queue, asset: asset,
                formats: [("io.darkroom.pipeline", "1.0.0"), ("com.shinobicontrols.filster", "1.0")])
            _ = try queue.enqueueRerender(formatIdentifier: "io.darkroom.pipeline")
            let job = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
            let result = JobResult(
                .layers([
                    layer(
                        "io.darkroom.pipeline", "1.1.0", path: "renders/\(asset)/\(job.id).layer1.jpg",
                        rerenderOf: old[0]),
                    layer(
                        "com.shinobicontrols.filster", "1.0", path: "renders/\(asset)/\(job.id).jpg", rerenderOf: old[1]
                    ),
                ]), expectedCurrent: .adjustment(old[1]))
            let current = try #require(try queue.complete(job, with: result))

            let chain = try store.currentChain(of: asset)
            #expect(chain.last?.id == current)
            #expect(chain.map(\.rerenderOf) == [old[0], old[1]])
            #expect(chain[0].baseAdjustmentID == nil && chain[1].baseAdjustmentID == chain[0].id)
            #expect(chain.map(\.jobID) == [nil, job.id])
            #expect(try queue.job(id: job.id)?.adjustmentID == current)
            let history = try store.history(of: asset)
            #expect(history.map(\.action) == ["edit", "edit", "rerender"])
            #expect(history.last?.previousAdjustmentID == old[1] && history.last?.adjustmentID == current)
        }
    }

    @Test func aCompletionOnAStaleCurrentAdjustmentWritesNothing() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            let chain = try makeChain(queue, asset: asset, formats: [("io.darkroom.pipeline", "1.0.0")])
            let revert = try queue.enqueueRevert(assetID: asset)
            let job = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
            // Someone moves the asset by hand meanwhile.
            _ = try connection.query(
                "UPDATE darkroom.assets SET current_adjustment_id = NULL WHERE id = $1", [.int(asset)])
            let error = #expect(throws: QueueError.self) {
                try queue.complete(
                    job, with: JobResult(.original(outcome: "reverted"), expectedCurrent: .adjustment(chain[0])))
            }
            #expect(error?.code == .assetChanged)
            #expect(try queue.job(id: revert)?.state == .running, "nothing was written")
            #expect(try AssetStore(connection).history(of: asset).count == 1)

            // Against what is there now, a revert with nothing to do succeeds and records no change.
            try queue.complete(job, with: JobResult(.none(outcome: "already the original"), expectedCurrent: .original))
            let stored = try #require(try queue.job(id: revert))
            #expect(
                stored.state == .succeeded && stored.adjustmentID == nil && stored.outcome == "already the original")
        }
    }

    @Test func historyIsAppendOnly() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            _ = try makeChain(queue, asset: asset, formats: [("io.darkroom.pipeline", "1.0.0")])
            #expect(throws: DatabaseError.self) {
                try connection.query("UPDATE darkroom.asset_history SET action = 'revert'")
            }
            #expect(throws: DatabaseError.self) { try connection.query("DELETE FROM darkroom.asset_history") }
            _ = try connection.query("DELETE FROM darkroom.assets WHERE id = $1", [.int(asset)])
            #expect(
                try scalar(connection, "SELECT count(*) FROM darkroom.asset_history").decode(Int.self) == 0,
                "deleting the asset takes its history with it")
        }
    }
}
