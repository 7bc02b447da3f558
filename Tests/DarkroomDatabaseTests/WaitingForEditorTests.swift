import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// `darkroom.waiting_for_editor` asks can_run once per kind and format, and job by job only on
/// assets showing a layer some live worker cannot read. It must say exactly what asking every
/// queued job says (the reference below, the view's former definition), whatever the chains.
@Suite("Waiting for a newer editor")
struct WaitingForEditorTests {
    let worker = WorkerIdentity(name: "host-1/0", host: "host-1", pid: 42)
    /// Reads io.darkroom.pipeline up to 1.0.0.
    let pipelineOnePointZero = [
        ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "1.0.0-0", maxVersion: "1.0.0")
    ]

    /// Every queued job asked can_run against every live worker.
    static let reference = """
        SELECT j.kind, j.format_identifier, j.format_version, count(*) AS jobs, min(j.created_at) AS oldest
          FROM darkroom.jobs AS j
         WHERE j.state = 'queued'
           AND NOT EXISTS (
               SELECT 1 FROM darkroom.worker_status AS w
                CROSS JOIN LATERAL (
                      SELECT coalesce(array_agg(f->>'identifier'), '{}') AS identifiers,
                             coalesce(array_agg(darkroom.semver_sort_key(f->>'min')), '{}') AS lows,
                             coalesce(array_agg(darkroom.semver_sort_key(f->>'max')), '{}') AS highs
                        FROM jsonb_array_elements(w.formats) AS f) AS editors
                WHERE w.alive AND darkroom.can_run(j.kind, j.asset_id, j.format_identifier, j.format_version_sort,
                                                   editors.identifiers, editors.lows, editors.highs))
         GROUP BY j.kind, j.format_identifier, j.format_version
        """

    func rows(_ connection: DatabaseConnection, _ sql: String) throws -> [String] {
        try connection.query(sql).map { row in
            "\(try row["kind"].decode(String.self)) \(try row["format_identifier"].decode(String?.self) ?? "-") "
                + "\(try row["format_version"].decode(String?.self) ?? "-"): \(try row["jobs"].decode(Int.self)) since "
                + "\(try row["oldest"].decode(Date.self).timeIntervalSince1970)"
        }.sorted()
    }

    func expectExact(_ connection: DatabaseConnection, _ comment: Comment) throws -> [String] {
        let view = try rows(connection, "SELECT * FROM darkroom.waiting_for_editor")
        #expect(view == (try rows(connection, Self.reference)), comment)
        return view
    }

    /// A layer rendered by any worker: the asset's next layer, on its current one.
    func addLayer(_ queue: JobQueue, _ connection: DatabaseConnection, asset: Int64, version: String) throws {
        let base = try AssetStore(connection).asset(id: asset)?.currentAdjustmentID
        try complete(queue, asset: asset, [("io.darkroom.pipeline", version)], on: base)
    }

    /// Runs one edit of `asset` that leaves `layers` (format, version; bottom first, the first
    /// on `base`), whatever the asset showed: a layer it showed may so be left behind. Nothing
    /// else may be queued. Returns the new top.
    @discardableResult
    func complete(
        _ queue: JobQueue, asset: Int64, _ layers: [(String, String)], on base: Int64?,
        rerendering old: [Int64]? = nil
    ) throws -> Int64 {
        let job: ClaimedJob
        if old == nil {
            _ = try queue.enqueue(
                assetID: asset, formatIdentifier: layers.last!.0, formatVersion: layers.last!.1, data: sampleData)
        }
        job = try #require(try queue.claim(workerID: "any", limit: 1, lease: .seconds(60)).first)
        let records = layers.enumerated().map { index, layer in
            NewAdjustment(
                formatIdentifier: layer.0, formatVersion: layer.1, data: sampleData,
                baseAdjustmentID: index == 0 ? base : nil,
                renderedPath: "rendered/\(job.id)-\(index).jpg", renderedWidth: 640, renderedHeight: 480,
                renderedBytes: 1,
                rerenderOf: old?[index])
        }
        return try #require(try queue.complete(job, with: JobResult(.layers(records), expectedCurrent: nil)))
    }

    @Test func groupsAndChainsGiveWhatAskingEveryJobGives() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            // a: [1.0.0]   b: [1.0.0, 2.0.0]   c: [2.0.0]   d: no layers
            let (a, b, c, d) = (
                try registerAsset(1, on: connection), try registerAsset(2, on: connection),
                try registerAsset(3, on: connection), try registerAsset(4, on: connection)
            )
            try addLayer(queue, connection, asset: a, version: "1.0.0")
            try addLayer(queue, connection, asset: b, version: "1.0.0")
            try addLayer(queue, connection, asset: b, version: "2.0.0")
            try addLayer(queue, connection, asset: c, version: "2.0.0")

            _ = try queue.heartbeat(worker, lease: .seconds(60), jobs: [], formats: pipelineOnePointZero)
            // Re-renders of every pipeline layer of a, b and c: b and c show a layer this fleet cannot read.
            _ = try queue.enqueueRerender(formatIdentifier: "io.darkroom.pipeline", batch: "everything")
            _ = try queue.enqueue(
                assetID: d, formatIdentifier: "io.darkroom.pipeline", formatVersion: "2.0.0", data: sampleData)
            _ = try queue.enqueue(
                assetID: d, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0", data: sampleData)
            _ = try queue.enqueueRevert(assetID: b, lastOnly: true)  // renders b's 1.0.0 layer only
            _ = try queue.enqueueRevert(assetID: c, lastOnly: true)  // renders nothing
            _ = try queue.enqueueRevert(assetID: c)

            let waiting = try expectExact(connection, "one 1.0.0 worker")
            #expect(
                waiting.map { String($0.prefix(while: { $0 != ":" })) } == [
                    "edit io.darkroom.pipeline 2.0.0", "rerender io.darkroom.pipeline -",
                ])
            #expect(waiting.contains { $0.hasPrefix("rerender io.darkroom.pipeline -: 2 since") }, "b and c, not a")

            // Folded by a heartbeat, claimed from, and with no live worker at all: still exact.
            _ = try queue.heartbeat(worker, lease: .seconds(60), jobs: [], formats: pipelineOnePointZero)
            #expect(
                try scalar(
                    connection,
                    """
                    SELECT count(*) FROM (SELECT 1 FROM darkroom.job_counts WHERE state = 'queued' GROUP BY batch, kind, format_identifier, format_version HAVING count(*) > 1) AS k
                    """
                ).int == 0)
            _ = try expectExact(connection, "after folding")
            _ = try queue.claim(workerID: worker.name, limit: 2, lease: .seconds(60), formats: pipelineOnePointZero)
            _ = try expectExact(connection, "after two claims")
            try queue.workerStopped(worker)
            let everything = try expectExact(connection, "no live worker")
            #expect(everything.count > waiting.count)
            // A worker reading 2.x too: nothing waits.
            _ = try queue.heartbeat(
                worker, lease: .seconds(60), jobs: [],
                formats: [
                    ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "1.0.0-0", maxVersion: "2.0.0")
                ])
            #expect(try expectExact(connection, "a 2.0.0 worker").isEmpty)
        }
    }

    /// Chains with an unreadable layer at the top, in the middle, at the bottom, left behind by
    /// a later edit, or replayed by a re-render; re-renders of one format and of whole chains,
    /// revert_lasts, reverts and edits on them; fleets of one and two workers that each lack a
    /// different editor. The jobs are found from either end (a group no larger than the number
    /// of unread layers from its own, else from those layers' assets): both are met here.
    @Test func everyChainShapeGivesWhatAskingEveryJobGives() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let (p, o) = ("io.darkroom.pipeline", "com.example.retouch")
            let assets = try (1...13).map { try registerAsset($0, on: connection) }
            func asset(_ n: Int) -> Int64 { assets[n - 1] }

            // 13: [p 1.0.0, retouch 1.0.0], then a re-render of p to 2.0.0 that replays both.
            let old13 = try complete(queue, asset: asset(13), [(p, "1.0.0"), (o, "1.0.0")], on: nil)
            let oldChain = try AssetStore(connection).currentChain(of: asset(13)).map(\.id)
            #expect(oldChain.last == old13)
            #expect(try queue.enqueueRerender(formatIdentifier: p, batch: "setup") == 1)
            try complete(queue, asset: asset(13), [(p, "2.0.0"), (o, "1.0.0")], on: nil, rerendering: oldChain)

            try complete(queue, asset: asset(1), [(p, "1.0.0")], on: nil)  // [p1]
            try complete(queue, asset: asset(2), [(p, "1.0.0"), (p, "2.0.0")], on: nil)  // [p1, p2]
            try complete(queue, asset: asset(3), [(p, "2.0.0"), (p, "1.0.0")], on: nil)  // [p2, p1]
            let bottom4 = try complete(queue, asset: asset(4), [(p, "1.0.0")], on: nil)
            let middle4 = try complete(queue, asset: asset(4), [(p, "2.0.0")], on: bottom4)
            try complete(queue, asset: asset(4), [(p, "1.0.0")], on: middle4)  // [p1, p2, p1]
            try complete(queue, asset: asset(5), [(o, "1.0.0")], on: nil)  // [o1]
            try complete(queue, asset: asset(6), [(p, "2.0.0")], on: nil)
            try complete(queue, asset: asset(6), [(p, "1.0.0")], on: nil)  // [p1], p2 left behind
            try complete(queue, asset: asset(8), [(p, "1.0.0"), (o, "2.0.0")], on: nil)  // [p1, o2]
            try complete(queue, asset: asset(9), [(p, "1.0.0"), (p, "2.0.0")], on: nil)  // like 2
            try complete(queue, asset: asset(10), [(p, "1.0.0"), (p, "2.0.0"), (p, "1.0.0")], on: nil)  // like 4
            try complete(queue, asset: asset(11), [(p, "2.0.0")], on: nil)  // [p2]
            let base12 = try complete(queue, asset: asset(12), [(p, "1.0.0")], on: nil)
            try complete(queue, asset: asset(12), [(p, "2.0.0")], on: base12)
            try complete(queue, asset: asset(12), [(p, "1.0.0")], on: base12)  // [p1, p1], p2 left behind
            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.jobs WHERE state <> 'succeeded'").int == 0)

            // 11 re-renders of p, 9 of p below 2.0.0, 12 of whole chains (7 shows its original).
            _ = try queue.enqueueRerender(formatIdentifier: p)
            _ = try queue.enqueueRerender(formatIdentifier: p, belowVersion: "2.0.0")
            _ = try connection.query(
                "INSERT INTO darkroom.jobs (asset_id, kind) SELECT id, 'rerender' FROM darkroom.assets WHERE current_adjustment_id IS NOT NULL"
            )
            // Two on 4: jobs of one group on one asset walk its chain together.
            for n in [2, 3, 4, 4, 8, 11, 13] { _ = try queue.enqueueRevert(assetID: asset(n), lastOnly: true) }
            _ = try queue.enqueueRevert(assetID: asset(6))
            for (n, format, version) in [(7, p, "2.0.0"), (1, p, "1.0.0"), (5, o, "1.0.0"), (5, o, "2.0.0")] {
                _ = try queue.enqueue(
                    assetID: asset(n), formatIdentifier: format, formatVersion: version, data: sampleData)
            }
            #expect(
                try scalar(
                    connection, "SELECT count(*) FROM darkroom.jobs WHERE state = 'queued' AND kind = 'rerender'"
                ).int == 32)

            func fleet(_ workers: [[ClaimableFormat]]) throws {
                _ = try connection.query("DELETE FROM darkroom.workers")
                for (index, formats) in workers.enumerated() {
                    let identity = WorkerIdentity(
                        name: "host-\(index)/0", host: "host-\(index)", pid: Int32(100 + index))
                    _ = try queue.heartbeat(identity, lease: .seconds(60), jobs: [], formats: formats)
                }
            }
            func reads(_ identifier: String, upTo version: String) -> ClaimableFormat {
                ClaimableFormat(identifier: identifier, minVersion: "0.0.0", maxVersion: version)
            }

            // Thirteen unread layers (p 2.0.0 and every retouch layer), no group larger: from the groups' end.
            try fleet([[reads(p, upTo: "1.0.0")]])
            let onlyOld = try expectExact(connection, "one worker reading p up to 1.0.0")
            #expect(
                onlyOld.contains { $0.hasPrefix("revert_last - -: 4 since") },
                "3, 4 (twice) and 13 render a p 2.0.0 layer; 2, 8 and 11 do not")
            // One unread layer (8's retouch 2.0.0), groups of 11 and 12: from its asset's end.
            try fleet([[reads(p, upTo: "2.0.0"), reads(o, upTo: "1.0.0")]])
            #expect(
                try scalar(
                    connection,
                    "SELECT count(*) FROM darkroom.adjustments WHERE format_identifier = $1 AND format_version = '2.0.0'",
                    [.text(o)]
                ).int == 1)
            let waiting = try expectExact(connection, "one worker reading retouch up to 1.0.0")
            #expect(
                waiting.contains { $0.hasPrefix("rerender - -: 1 since") }
                    && waiting.contains { $0.hasPrefix("rerender \(p) -: 1 since") },
                "8's re-renders (they render its retouch 2.0.0 layer), not its revert_last")
            // Each worker lacks what the other reads: 13 ([p2, o1]) waits for a whole re-render, not for its revert_last.
            try fleet([[reads(p, upTo: "1.0.0"), reads(o, upTo: "2.0.0")], [reads(p, upTo: "2.0.0")]])
            _ = try expectExact(connection, "two workers, each lacking one editor")
            try fleet([])
            _ = try expectExact(connection, "no live worker")
            try fleet([[reads(p, upTo: "2.0.0"), reads(o, upTo: "2.0.0")]])
            #expect(try expectExact(connection, "a worker reading everything").isEmpty)
        }
    }
}
