import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// A filter upgrade rolled out (a canary, then the rest, then nothing more), rendered by a real
/// worker; and `rerender --stale` after a math bump or other output settings.
@Suite(.serialized) struct FilterUpgradeTests {
    /// The filter upgrade jobs: asset, batch, version.
    static func upgradeJobs(_ connection: DatabaseConnection) throws -> [(asset: Int64, batch: String, version: String)]
    {
        try connection.query(
            "SELECT asset_id, batch, filter_version FROM darkroom.jobs WHERE filter_name = 'dusk' ORDER BY id"
        ).map {
            (
                try $0["asset_id"].decode(Int64.self), try $0["batch"].decode(String.self),
                try $0["filter_version"].decode(String.self)
            )
        }
    }

    @Test func aCanaryThenTheRestThenNothingMore() throws {
        try FilterJobTests.withMigrated { url, storage, command in
            let assets = try FilterJobTests.upgradeLibrary(url, command)
            let connection = try DatabaseConnection(url)
            let reached = Set([assets[0], assets[1], assets[4]])
            let newest = try FilterDigest.of(FilterJobTests.identity)

            let canary = try command.run("rerender", "--filter", "dusk", "--below-version", "2.0.0", "--sample", "1")
            try #require(canary.status == 0, "\(canary.stderr)")
            #expect(
                canary.stdout.hasPrefix(
                    "queued 1 re-render job(s) bringing dusk to 2.0.0 in batch filter-dusk-2.0.0-sample"),
                "\(canary.stdout)")
            let sampled = try Self.upgradeJobs(connection)
            try #require(sampled.count == 1)
            #expect(reached.contains(sampled[0].asset) && sampled[0].batch == "filter-dusk-2.0.0-sample")
            // The sample is the same on every run: the first of the md5 order, which SQL owns.
            let first = try connection.query(
                """
                SELECT a FROM unnest($1::bigint[]) AS a ORDER BY md5(a || ':dusk:2.0.0') LIMIT 1
                """, [.int64Array(reached.sorted().map { $0 })])[0]["a"].decode(Int64.self)
            #expect(sampled[0].asset == first)

            // The rest, one job per transaction; then nothing more, from the command or from SQL.
            let rest = try command.run("rerender", "--filter", "dusk", "--below-version", "2.0.0", "--chunk", "1")
            try #require(rest.status == 0, "\(rest.stderr)")
            #expect(
                rest.stdout.hasPrefix("queued 2 re-render job(s) bringing dusk to 2.0.0 in batch filter-dusk-2.0.0\n"))
            let all = try Self.upgradeJobs(connection)
            #expect(Set(all.map(\.asset)) == reached && all.count == 3 && all.allSatisfy { $0.version == "2.0.0" })
            #expect(all.filter { $0.batch == "filter-dusk-2.0.0" }.count == 2)
            let again = try command.run("rerender", "--filter", "dusk", "--below-version", "2.0.0")
            #expect(again.stdout.hasPrefix("queued 0 re-render job(s)"), "\(again.stdout)")
            let sql = try connection.query(
                "SELECT queued, to_version FROM darkroom.enqueue_filter_rerender('dusk', '2.0.0')")[0]
            #expect(try sql["queued"].decode(Int64.self) == 0 && sql["to_version"].decode(String.self) == "2.0.0")
            let hashes = try connection.query(
                "SELECT DISTINCT filter_sha256 FROM darkroom.jobs WHERE filter_name = 'dusk'"
            )
            .map { try $0["filter_sha256"].decode(String.self) }
            #expect(hashes == [newest])

            // A worker of a release before upgrades, or one that does not say (an older binary
            // calls claim_jobs with four arguments), leaves them queued; a bad release is refused.
            let queue = JobQueue(connection, logger: .quiet)
            #expect(try queue.claim(workerID: "old", limit: 10, lease: .seconds(60), release: "0.23.9").isEmpty)
            #expect(try queue.claim(workerID: "unsaid", limit: 10, lease: .seconds(60)).isEmpty)
            #expect(try connection.query("SELECT id FROM darkroom.claim_jobs('old', 10, 60, NULL)").isEmpty)
            #expect(throws: DatabaseError.self) {
                try queue.claim(workerID: "bad", limit: 1, lease: .seconds(60), release: "twenty-four")
            }

            // A real worker replays each chain with dusk at 2.0.0, in whatever layer it was.
            let before = try AssetStore(connection).currentChain(of: assets[1])
            let drained = try command.run("worker", "--drain")
            try #require(drained.status == 0, "\(drained.stderr)")
            let states = try connection.query("SELECT DISTINCT state FROM darkroom.jobs WHERE filter_name = 'dusk'")
                .map { try $0["state"].decode(String.self) }
            #expect(states == ["succeeded"])
            let after = try AssetStore(connection).currentChain(of: assets[1])
            try #require(after.count == 3)
            #expect(after.map(\.rerenderOf) == before.map(\.id), "each layer a re-render of the one it replaces")
            #expect(after[0].data == before[0].data && after[2].data == before[2].data, "the other editor's unchanged")
            #expect(
                try PipelineFormat.decode(after[1].data)
                    == [.filter(FilterStep(name: "dusk", version: "2.0.0", sha256: newest))])
            #expect(
                try PipelineFormat.decode(before[1].data).first
                    == .filter(
                        FilterStep(
                            name: "dusk", version: "1.0.0", sha256: try FilterDigest.of(FilterJobTests.grayscale))),
                "the old record is kept as it was")
            let provenance = try connection.query(
                "SELECT rendered_with -> 'filters' -> 0 ->> 'version' AS v FROM darkroom.adjustments WHERE id = $1",
                [.int(after[1].id)])[0]["v"].decode(String.self)
            #expect(provenance == "2.0.0")
            // Every reached asset shows 2.0.0 now; the others were not touched.
            let dryRun = try command.run("rerender", "--filter", "dusk", "--below-version", "2.0.0", "--dry-run")
            #expect(dryRun.stdout.contains("no asset shows dusk below 2.0.0"), "\(dryRun.stdout)")
            let rerendered = try connection.query(
                "SELECT DISTINCT asset_id FROM darkroom.adjustments WHERE rerender_of IS NOT NULL ORDER BY asset_id"
            ).map { try $0["asset_id"].decode(Int64.self) }
            #expect(Set(rerendered) == reached)
        }
    }

    /// The rewrite of a filter operation: only the named filter, only below the version, other fields kept.
    @Test func theRewriteTouchesOnlyOlderVersionsOfTheFilter() throws {
        try FilterJobTests.withMigrated { url, _, _ in
            let connection = try DatabaseConnection(url)
            func upgrade(_ json: String) throws -> String {
                try connection.query(
                    "SELECT convert_from(darkroom.upgrade_filter_data(convert_to($1, 'UTF8'), 'dusk', '2.0.0', $2), "
                        + "'UTF8') AS out", [.text(json), .text(String(repeating: "a", count: 64))]
                )[0]["out"].decode(String.self)
            }
            let old = #"{"operations": [{"op": "filter", "name": "dusk", "version": "1.0", "intensity": 0.5}]}"#
            #expect(
                try upgrade(old)
                    == #"{"operations": [{"op": "filter", "name": "dusk", "sha256": ""#
                    + String(repeating: "a", count: 64) + #"", "version": "2.0.0", "intensity": 0.5}]}"#)
            for unchanged in [
                #"{"operations":[{"op":"filter","name":"dusk","version":"2.0.0"}]}"#,
                #"{"operations":[{"op":"filter","name":"dusk","version":"10.0.0"}]}"#,
                #"{"operations":[{"op":"filter","name":"dawn","version":"1.0.0"}]}"#,
                #"{"operations":[{"op":"sepia"}]}"#, "not json", #"{"operations":"x"}"#,
            ] {
                #expect(try upgrade(unchanged) == unchanged)
            }
            // A job carries a whole filter upgrade or none, and only as a re-render.
            let asset = try connection.query(
                """
                INSERT INTO darkroom.assets (original_path, content_sha256, byte_size, pixel_width, pixel_height)
                VALUES ('originals/1.jpg', repeat('a', 64), 1, 1, 1) RETURNING id
                """)[0]["id"].decode(Int64.self)
            let half = #expect(throws: DatabaseError.self) {
                try connection.query(
                    "INSERT INTO darkroom.jobs (asset_id, kind, filter_name) VALUES ($1, 'rerender', 'dusk')",
                    [.int(asset)])
            }
            #expect(half?.sqlState == "23514" && half?.message.contains("jobs_filter_upgrade_shape") == true)
            #expect(throws: DatabaseError.self) {
                try connection.query(
                    """
                    INSERT INTO darkroom.jobs (asset_id, kind, format_identifier, format_version, data, filter_name,
                                               filter_version, filter_sha256)
                    VALUES ($1, 'edit', 'io.darkroom.pipeline', '1.0.0', '\\x7b7d', 'dusk', '2.0.0', repeat('a', 64))
                    """, [.int(asset)])
            }
        }
    }

    /// `--stale` finds exactly what a math bump or other output settings made stale, and a worker
    /// with those settings leaves nothing stale.
    @Test func staleAfterAMathBumpOrOtherSettings() throws {
        try FilterJobTests.withMigrated { url, _, command in
            try #require(try command.run("filter", "add", "dusk", "1.0.0", FilterJobTests.identity).status == 0)
            var assets: [Int64] = []
            for index in 1...4 {
                let imported = try command.run("import", Fixtures.exifSample("orientation/landscape_\(index).jpg").path)
                try #require(imported.status == 0, "\(imported.stderr)")
                assets.append(try #require(Int64(imported.stdout.split(separator: "\t")[0].dropFirst("asset ".count))))
            }
            let connection = try DatabaseConnection(url)
            func edit(_ asset: Int64, _ json: String) throws {
                _ = try connection.query(
                    "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::text)",
                    [.int(asset), .text(json)])
            }
            // 0: sepia. 1: dusk under filtster (vignette, sepia). 2: dusk. 3: the original.
            try edit(assets[0], #"{"operations":[{"op":"sepia","intensity":0.3}]}"#)
            try edit(assets[1], #"{"operations":[{"op":"filter","name":"dusk"}]}"#)
            try edit(assets[2], #"{"operations":[{"op":"filter","name":"dusk"}]}"#)
            try #require(try command.run("worker", "--drain").status == 0)
            let filtster = FiltsterSettings(vignetteIntensity: 0.5, vignetteRadius: 0.9, sepiaIntensity: 0.3).archive()
            _ = try connection.query(
                "SELECT darkroom.enqueue_edit($1, 'com.shinobicontrols.filster', '1.0', $2::bytea)",
                [.int(assets[1]), .bytes(filtster)])
            try #require(try command.run("worker", "--drain").status == 0)

            let stale = StaleRenders(connection)
            func staleAssets(_ build: RenderBuild) throws -> [Int64] {
                try connection.query(
                    """
                    SELECT DISTINCT asset_id FROM darkroom.stale_renders($1::jsonb)
                     ORDER BY asset_id
                    """, [.text(build.json)]
                ).map { try $0["asset_id"].decode(Int64.self) }
            }
            #expect(try staleAssets(RenderBuild()) == [])
            #expect(try stale.count(build: RenderBuild().json) == 0)
            var sepia = RenderMath.versions
            sepia["sepia"]! += 1
            #expect(try staleAssets(RenderBuild(math: sepia)) == [assets[0], assets[1]])
            var filter = RenderMath.versions
            filter["filter"]! += 1
            #expect(try staleAssets(RenderBuild(math: filter)) == [assets[1], assets[2]], "dusk in a lower layer too")
            var vignette = RenderMath.versions
            vignette["vignette"]! += 1
            #expect(try staleAssets(RenderBuild(math: vignette)) == [assets[1]])
            #expect(try staleAssets(RenderBuild(quality: 80)) == [assets[0], assets[1], assets[2]])
            // A new version of a rendition: every top layer wrote the old one.
            _ = try connection.query("SELECT darkroom.add_rendition('display', 'jpeg', 1024)")
            #expect(try staleAssets(RenderBuild()) == [assets[0], assets[1], assets[2]])
            #expect(try stale.counts(build: RenderBuild().json).contains(StaleCount(reason: "rendition", assets: 3)))
            _ = try connection.query("DELETE FROM darkroom.renditions WHERE name = 'display' AND version = 2")
            #expect(
                try stale.counts(build: RenderBuild(math: sepia).json)
                    == [StaleCount(reason: "any", assets: 2), StaleCount(reason: "math", assets: 2)])
            // A render whose record is newer than this build is not stale.
            var older = RenderMath.versions
            older["sepia"]! -= 1
            #expect(try staleAssets(RenderBuild(math: older)) == [])
            #expect(throws: DatabaseError.self) { try stale.count(build: #"{"math":{}}"#) }

            // Queued once, exactly the stale assets; nothing more when run again.
            #expect(try stale.enqueue(build: RenderBuild(math: sepia).json, batch: "bump") == 2)
            #expect(try stale.enqueue(build: RenderBuild(math: sepia).json, batch: "bump") == 0)
            let queued = try connection.query(
                "SELECT asset_id FROM darkroom.jobs WHERE batch = 'bump' AND kind = 'rerender' ORDER BY asset_id"
            ).map { try $0["asset_id"].decode(Int64.self) }
            #expect(queued == [assets[0], assets[1]])
            _ = try connection.query("SELECT darkroom.cancel_batch('bump')")

            // Through the command: other output settings, a dry run by reason, then the roll-out
            // rendered by workers with those settings leaves nothing stale.
            let dryRun = try command.run("rerender", "--stale", "--quality", "80", "--dry-run")
            try #require(dryRun.status == 0, "\(dryRun.stderr)")
            #expect(
                dryRun.stdout == "output\t3 asset(s) rendered with other output settings\n"
                    + "stale\t3 asset(s) would be re-rendered\ndry run: nothing queued\n", "\(dryRun.stdout)")
            let rollOut = try command.run("rerender", "--stale", "--quality", "80", "--batch", "q80")
            #expect(rollOut.stdout.hasPrefix("queued 3 re-render job(s) in batch q80"), "\(rollOut.stdout)")
            try #require(try command.run("worker", "--drain", "--quality", "80").status == 0)
            let none = try command.run("rerender", "--stale", "--quality", "80", "--dry-run")
            #expect(none.stdout.contains("no asset is stale"), "\(none.stdout)")
            #expect(try staleAssets(RenderBuild()) == [assets[0], assets[1], assets[2]])
            // What the triggers kept through all of it is what a walk of every chain finds.
            #expect(try connection.query("SELECT what, key FROM darkroom.library_counts_drift()").isEmpty)
        }
    }
}
