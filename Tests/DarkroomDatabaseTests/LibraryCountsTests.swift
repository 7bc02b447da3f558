import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// The library figures kept by triggers (`library_counts.sql`): each asset's render
/// fingerprint and filter versions, and how many assets have each, stay equal to what a walk of
/// every chain finds (`darkroom.library_counts_drift`), through edits, reverts, renditions jobs,
/// deletes, folds, concurrent workers and the rebuild a migrated library gets.
@Suite("Library counts kept by triggers")
struct LibraryCountsTests {
    static let build =
        #"{"math":{"filter":1,"exposure":2},"output":{"quality":92,"chroma":"4:4:4","colour_profile":"source"}}"#
    /// What a worker of `build` records for a layer that used `operation`.
    static func renderedWith(_ operation: String) -> String {
        let version = operation == "filter" ? 1 : 2
        return #"{"math":{"\#(operation)":\#(version)},"output":{"quality":92,"chroma":"4:4:4","#
            + #""colour_profile":"source","display_longest_side":2048}}"#
    }

    static func drift(_ connection: DatabaseConnection) throws -> [String] {
        try connection.query("SELECT what, key, kept, actual FROM darkroom.library_counts_drift()").map {
            "\(try $0["what"].decode(String.self)) \(try $0["key"].decode(String.self)): kept "
                + "\(try $0["kept"].decode(Int64?.self).map(String.init) ?? "none"), actual "
                + "\(try $0["actual"].decode(Int64?.self).map(String.init) ?? "none")"
        }
    }

    /// (reason → assets) from the kept counts.
    static func staleCounts(_ connection: DatabaseConnection, build: String = build) throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for count in try StaleRenders(connection).counts(build: build) { counts[count.reason] = count.assets }
        return counts
    }

    static func filterCounts(_ connection: DatabaseConnection) throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for row in try connection.query("SELECT name, version, assets FROM darkroom.filter_versions") {
            counts["\(try row["name"].decode(String.self)) \(try row["version"].decode(String.self))"] = try row[
                "assets"
            ].decode(Int64.self)
        }
        return counts
    }

    /// Claims every queued job and completes each as a worker would: a layer of the job's data
    /// rendered as a worker of `build` records it, or with no record when `recorded` is false.
    static func work(_ connection: DatabaseConnection, recorded: Bool = true) throws {
        let queue = JobQueue(connection, logger: .quiet)
        for job in try queue.claim(workerID: "w", limit: 100, lease: .seconds(60)) {
            let current = try connection.query(
                "SELECT current_adjustment_id AS id FROM darkroom.assets WHERE id = $1", [.int(job.assetID)])[0]["id"]
                .decode(Int64?.self)
            var layer = sampleAdjustment(for: job, base: current)
            let usesFilter = String(decoding: layer.data, as: UTF8.self).contains(#""filter""#)
            layer.renderedWith = recorded ? renderedWith(usesFilter ? "filter" : "exposure") : nil
            if job.work == .revert {
                _ = try queue.complete(job, with: JobResult(.original(outcome: "reverted"), expectedCurrent: nil))
            } else {
                _ = try queue.complete(job, with: layer)
            }
        }
    }

    static func addFilter(_ connection: DatabaseConnection, _ version: String, _ hex: Character) throws {
        _ = try connection.query(
            "SELECT darkroom.add_filter('dusk', $1, $2, 1000)",
            [.text(version), .text(String(repeating: hex, count: 64))])
    }

    static func editWithFilter(_ queue: JobQueue, _ asset: Int64) throws {
        _ = try queue.enqueue(
            assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
            data: Array(#"{"operations":[{"op":"filter","name":"dusk"}]}"#.utf8))
    }

    @Test func countsFollowEditsRevertsRenditionsJobsAndDeletes() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            try Self.addFilter(connection, "1.0.0", "1")
            let assets = try (1...5).map { try registerAsset($0, on: connection) }
            #expect(try Self.staleCounts(connection) == ["any": 0])

            // Assets 0-2 show dusk 1.0.0; 3 an exposure edit; 4 an edit whose render went unrecorded.
            for asset in assets[0...2] { try Self.editWithFilter(queue, asset) }
            _ = try queue.enqueueSample(assetID: assets[3])
            try Self.work(connection)
            _ = try queue.enqueueSample(assetID: assets[4])
            try Self.work(connection, recorded: false)
            #expect(try Self.drift(connection) == [])
            #expect(try Self.filterCounts(connection) == ["dusk 1.0.0": 3])
            #expect(
                try Self.staleCounts(connection) == ["any": 1, "unrecorded": 1])
            #expect(try StaleRenders(connection).count(build: Self.build) == 1)

            // dusk 2.0.0 on asset 0's second layer: it shows both versions; the dry run counts
            // it under 1.0.0 only once.
            try Self.addFilter(connection, "2.0.0", "2")
            try Self.editWithFilter(queue, assets[0])
            try Self.work(connection)
            #expect(try Self.drift(connection) == [])
            #expect(
                try Self.filterCounts(connection) == ["dusk 1.0.0": 3, "dusk 2.0.0": 1])
            let dryRun = try FilterCatalog(connection).upgradeCounts(name: "dusk", belowVersion: "2.0.0")
            #expect(dryRun.map(\.assets) == [3])

            // A newer math version of exposure makes asset 3 stale; other output settings all four.
            let bumped = Self.build.replacingOccurrences(of: #""exposure":2"#, with: #""exposure":3"#)
            #expect(
                try Self.staleCounts(connection, build: bumped) == ["any": 2, "math": 1, "unrecorded": 1])
            let q80 = Self.build.replacingOccurrences(of: #""quality":92"#, with: #""quality":80"#)
            #expect(
                try Self.staleCounts(connection, build: q80) == ["any": 5, "output": 4, "unrecorded": 1])

            // A revert of asset 1 to its original.
            _ = try queue.enqueueRevert(assetID: assets[1])
            try Self.work(connection)
            #expect(try Self.drift(connection) == [])
            #expect(
                try Self.filterCounts(connection) == ["dusk 1.0.0": 2, "dusk 2.0.0": 1])

            // A new rendition: every recorded top layer lacks it; a renditions job writes it for
            // asset 2's, and only that asset leaves the count.
            _ = try connection.query("SELECT darkroom.add_rendition('thumb', 'webp', 256)")
            #expect(
                try Self.staleCounts(connection) == ["any": 4, "rendition": 3, "unrecorded": 1])
            #expect(try StaleRenders(connection).enqueue(build: Self.build, batch: "thumbs") == 4)
            let jobs = try queue.claim(workerID: "w", limit: 10, lease: .seconds(60))
            let renditionsJob = try #require(jobs.first { $0.assetID == assets[2] })
            #expect(renditionsJob.work == .renditions)
            let top = try #require(
                try connection.query(
                    "SELECT current_adjustment_id AS id FROM darkroom.assets WHERE id = $1",
                    [
                        .int(assets[2])
                    ])[0]["id"].decode(Int64?.self))
            let file =
                #"{"name":"thumb","version":1,"format":"webp","path":"renders/\#(assets[2])/t.thumb.webp","width":256,"height":192,"bytes":900}"#
            _ = try queue.complete(
                renditionsJob,
                with: JobResult(
                    .renditions(adjustmentID: top, files: [file], warnings: []), expectedCurrent: .init(top)))
            #expect(try Self.drift(connection) == [])
            #expect(
                try Self.staleCounts(connection) == ["any": 3, "rendition": 2, "unrecorded": 1])
            #expect(
                try connection.query(
                    "SELECT asset_id FROM darkroom.stale_renders($1::jsonb) WHERE reason = 'rendition' ORDER BY 1",
                    [.text(Self.build)]
                ).map { try $0["asset_id"].decode(Int64.self) } == [assets[0], assets[3]])

            // Deleting an asset counts it out.
            _ = try connection.query("DELETE FROM darkroom.assets WHERE id = $1", [.int(assets[4])])
            #expect(try Self.drift(connection) == [])
            #expect(
                try Self.staleCounts(connection) == ["any": 2, "rendition": 2])

            // So does emptying the library at once.
            _ = try connection.query("TRUNCATE darkroom.assets CASCADE")
            #expect(try Self.drift(connection) == [])
            #expect(try Self.staleCounts(connection) == ["any": 0])
            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.asset_render_states").int == 0)
        }
    }

    /// A fold leaves one row per key and the same sums; the rebuild a migrated library gets (a
    /// migrate over a library with no counts) gives the same counts the triggers kept.
    @Test func foldsAndTheRebuildKeepTheSums() throws {
        try withQueueDatabase { url, connection in
            let queue = JobQueue(connection, logger: .quiet)
            try Self.addFilter(connection, "1.0.0", "1")
            for seed in 1...6 {
                let asset = try registerAsset(seed, on: connection)
                if seed.isMultiple(of: 2) {
                    try Self.editWithFilter(queue, asset)
                } else {
                    _ = try queue.enqueueSample(assetID: asset)
                }
            }
            try Self.work(connection)
            for seed in 1...3 { try Self.editWithFilter(queue, Int64(seed)) }
            try Self.work(connection)
            let counts = try Self.filterCounts(connection)
            let stale = try Self.staleCounts(connection, build: Self.build.replacingOccurrences(of: "92", with: "80"))
            #expect(counts == ["dusk 1.0.0": 5] && stale["any"] == 6)
            let rows = try #require(try scalar(connection, "SELECT count(*) FROM darkroom.library_counts").int)

            _ = try connection.query("SELECT darkroom.compact_library_counts()")
            let keys = try #require(
                try scalar(
                    connection,
                    "SELECT count(DISTINCT (fingerprint_id, filter_name, filter_version)) FROM darkroom.library_counts"
                ).int)
            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.library_counts").int == keys)
            #expect(keys < rows)
            #expect(try Self.filterCounts(connection) == counts)

            // As a library from before migration 0032: no state, no counts. A migrate rebuilds them.
            for table in ["library_counts", "asset_render_states", "asset_filter_versions"] {
                _ = try connection.query("DELETE FROM darkroom.\(table)")
            }
            #expect(try Self.filterCounts(connection) == ["dusk 1.0.0": 0])
            try Migrator.forTestDatabase(url).migrate(on: connection, logger: .quiet)
            #expect(try Self.drift(connection) == [])
            #expect(try Self.filterCounts(connection) == counts)
            #expect(
                try Self.staleCounts(connection, build: Self.build.replacingOccurrences(of: "92", with: "80")) == stale)
            #expect(try scalar(connection, "SELECT darkroom.rebuild_library_counts(4)").int == 6, "in batches of 4")
            #expect(try Self.drift(connection) == [])
        }
    }

    /// Four workers completing at once on their own connections, while heartbeats fold: the
    /// counts stay true (the row locks order two refreshes of one asset).
    @Test func concurrentWorkersKeepTheCountsTrue() throws {
        try withQueueDatabase { url, connection in
            let queue = JobQueue(connection, logger: .quiet)
            try Self.addFilter(connection, "1.0.0", "1")
            let assets = try (1...40).map { try registerAsset($0, on: connection) }
            for asset in assets {
                if asset.isMultiple(of: 2) {
                    try Self.editWithFilter(queue, asset)
                } else {
                    _ = try queue.enqueueSample(assetID: asset)
                }
            }
            _ = try runConcurrently(
                (0..<4).map { worker in
                    {
                        let connection = try DatabaseConnection(url)
                        let queue = JobQueue(connection, logger: .quiet)
                        while true {
                            let jobs = try queue.claim(workerID: "w\(worker)", limit: 3, lease: .seconds(60))
                            if jobs.isEmpty { break }
                            for job in jobs {
                                var layer = sampleAdjustment(for: job)
                                layer.renderedWith = Self.renderedWith(
                                    job.assetID.isMultiple(of: 2) ? "filter" : "exposure")
                                _ = try queue.complete(job, with: layer)
                            }
                            _ = try connection.query("SELECT darkroom.compact_library_counts()")
                        }
                    }
                })
            #expect(try Self.drift(connection) == [])
            #expect(try Self.filterCounts(connection) == ["dusk 1.0.0": 20])
            #expect(try StaleRenders(connection).count(build: Self.build) == 0)
        }
    }
}
