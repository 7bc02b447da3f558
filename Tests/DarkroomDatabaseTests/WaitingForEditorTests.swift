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
    let pipeline1_0 = [ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "1.0.0-0", maxVersion: "1.0.0")]

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

    func rows(_ connection: PostgresConnection, _ sql: String) throws -> [String] {
        try connection.query(sql).map { row in
            "\(try row["kind"].decode(String.self)) \(try row["format_identifier"].decode(String?.self) ?? "-") "
                + "\(try row["format_version"].decode(String?.self) ?? "-"): \(try row["jobs"].decode(Int.self)) since "
                + "\(try row["oldest"].decode(Date.self).timeIntervalSince1970)"
        }.sorted()
    }

    func expectExact(_ connection: PostgresConnection, _ comment: Comment) throws -> [String] {
        let view = try rows(connection, "SELECT * FROM darkroom.waiting_for_editor")
        #expect(view == (try rows(connection, Self.reference)), comment)
        return view
    }

    /// A layer rendered by any worker: the asset's next layer, on its current one.
    func addLayer(_ queue: JobQueue, _ connection: PostgresConnection, asset: Int64, version: String) throws {
        _ = try queue.enqueue(assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: version, data: sampleData)
        let job = try #require(try queue.claim(workerID: "any", limit: 1, lease: .seconds(60)).first)
        let base = try AssetStore(connection).asset(id: asset)?.currentAdjustmentID
        _ = try queue.complete(job, with: sampleAdjustment(for: job, base: base))
    }

    @Test func groupsAndChainsGiveWhatAskingEveryJobGives() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            // a: [1.0.0]   b: [1.0.0, 2.0.0]   c: [2.0.0]   d: no layers
            let (a, b, c, d) = (try registerAsset(1, on: connection), try registerAsset(2, on: connection),
                                try registerAsset(3, on: connection), try registerAsset(4, on: connection))
            try addLayer(queue, connection, asset: a, version: "1.0.0")
            try addLayer(queue, connection, asset: b, version: "1.0.0")
            try addLayer(queue, connection, asset: b, version: "2.0.0")
            try addLayer(queue, connection, asset: c, version: "2.0.0")

            _ = try queue.heartbeat(worker, lease: .seconds(60), jobs: [], formats: pipeline1_0)
            // Re-renders of every pipeline layer of a, b and c: b and c show a layer this fleet cannot read.
            _ = try queue.enqueueRerender(formatIdentifier: "io.darkroom.pipeline", batch: "everything")
            _ = try queue.enqueue(assetID: d, formatIdentifier: "io.darkroom.pipeline", formatVersion: "2.0.0", data: sampleData)
            _ = try queue.enqueue(assetID: d, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0", data: sampleData)
            _ = try queue.enqueueRevert(assetID: b, lastOnly: true)   // renders b's 1.0.0 layer only
            _ = try queue.enqueueRevert(assetID: c, lastOnly: true)   // renders nothing
            _ = try queue.enqueueRevert(assetID: c)

            let waiting = try expectExact(connection, "one 1.0.0 worker")
            #expect(waiting.map { String($0.prefix(while: { $0 != ":" })) } == ["edit io.darkroom.pipeline 2.0.0", "rerender io.darkroom.pipeline -"])
            #expect(waiting.contains { $0.hasPrefix("rerender io.darkroom.pipeline -: 2 since") }, "b and c, not a")

            // Folded by a heartbeat, claimed from, and with no live worker at all: still exact.
            _ = try queue.heartbeat(worker, lease: .seconds(60), jobs: [], formats: pipeline1_0)
            #expect(try scalar(connection, """
                SELECT count(*) FROM (SELECT 1 FROM darkroom.job_counts WHERE state = 'queued' GROUP BY batch, kind, format_identifier, format_version HAVING count(*) > 1) AS k
                """).int == 0)
            _ = try expectExact(connection, "after folding")
            _ = try queue.claim(workerID: worker.name, limit: 2, lease: .seconds(60), formats: pipeline1_0)
            _ = try expectExact(connection, "after two claims")
            try queue.workerStopped(worker)
            let everything = try expectExact(connection, "no live worker")
            #expect(everything.count > waiting.count)
            // A worker reading 2.x too: nothing waits.
            _ = try queue.heartbeat(worker, lease: .seconds(60), jobs: [],
                                    formats: [ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "1.0.0-0", maxVersion: "2.0.0")])
            #expect(try expectExact(connection, "a 2.0.0 worker").isEmpty)
        }
    }
}
