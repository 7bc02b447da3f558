import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// Filters as data, end to end through the command line: `filter add` and `list`, what
/// `enqueue_edit` checks and fills in, a worker rendering a filter edit, the rules that keep
/// a version unchanged and in place, and a LUT whose bytes no longer match their hash.
@Suite(.serialized) struct FilterJobTests {
    static let grayscale = Fixtures.lut("obs-grayscale.cube")
    static let identity = Fixtures.lut("obs-original.cube")

    /// A fresh database, migrated, and a storage folder of its own, for `body`.
    static func withMigrated(_ body: (String, String, DarkroomCommand) throws -> Void) throws {
        try DarkroomCommand.withMigratedLibrary("filters") { command in
            try body(command.databaseURL, command.storage, command)
        }
    }

    @Test func addEnqueueRenderAndKeepVersions() throws {
        try Self.withMigrated { url, storage, command in
            let imported = try command.run("import", Fixtures.exifSample("canon_hdr_NO.jpg").path)
            let assetID = try #require(Int64(imported.stdout.split(separator: "\t")[0].dropFirst("asset ".count)))
            let connection = try DatabaseConnection(url)

            // Adding: the LUT is read, stored under its hash, recorded.
            let added = try command.run("filter", "add", "dusk", "1.0.0", Self.grayscale)
            try #require(added.status == 0, "\(added.stderr)")
            let digest = "3e19c6b64f2dcca786a9b0e35e7ebde075d30541db3bf4fd44d337fcff9f9adc"
            #expect(added.stdout.contains("3D LUT of size 32") && added.stdout.contains(digest))
            #expect(FileManager.default.fileExists(atPath: "\(storage)/filters/3e/\(digest).cube"))
            #expect(try command.run("filter", "add", "dusk", "1.1.0", Self.identity).status == 0)
            #expect(try command.run("filter", "add", "dusk", "2.0.0-beta.1", Self.grayscale).status == 0)
            // A version is never changed, whatever its spelling; a file darkroom cannot render is not stored.
            let again = try command.run("filter", "add", "dusk", "1.1", Self.grayscale)
            #expect(again.status == 1 && again.stderr.contains("already has version 1.1.0"), "\(again.stderr)")
            let bad = NSTemporaryDirectory() + "darkroom-bad-" + UUID().uuidString + ".cube"
            try Data("LUT_3D_SIZE 2\n0 0 0\nnan 0 0\n".utf8).write(to: URL(fileURLWithPath: bad))
            defer { try? FileManager.default.removeItem(atPath: bad) }
            let refused = try command.run("filter", "add", "dusk", "3.0.0", bad)
            #expect(refused.status == 1 && refused.stderr.contains("lut_not_finite"), "\(refused.stderr)")
            #expect(try command.run("filter", "add", "bad name", "1.0.0", Self.identity).status == 1)

            // enqueue_edit: unknown names and versions are refused; no version means the newest release.
            func enqueue(_ json: String) throws -> Int64 {
                try connection.query(
                    "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::text) AS id",
                    [.int(assetID), .text(json)])[0]["id"].decode(Int64.self)
            }
            #expect(throws: DatabaseError.self) { try enqueue(#"{"operations":[{"op":"filter","name":"dawn"}]}"#) }
            let unknownVersion = #expect(throws: DatabaseError.self) {
                try enqueue(#"{"operations":[{"op":"filter","name":"dusk","version":"1.2.0"}]}"#)
            }
            #expect(unknownVersion?.message.contains("has no version '1.2.0'") == true)
            let job = try enqueue(#"{"operations":[{"op":"sepia","intensity":0.5},{"op":"filter","name":"dusk"}]}"#)
            let stored = try connection.query("SELECT data FROM darkroom.jobs WHERE id = $1", [.int(job)])[0]["data"]
                .decode([UInt8].self)
            #expect(
                try PipelineFormat.decode(stored) == [
                    .sepia(intensity: 0.5),
                    .filter(
                        FilterStep(
                            name: "dusk", version: "1.1.0", sha256: FilterDigest.of(Self.identity))),
                ])
            // A named version keeps its spelling's precedence: 1.0 is 1.0.0.
            let named = try enqueue(#"{"operations":[{"op":"filter","name":"dusk","version":"1.0","intensity":0.8}]}"#)
            let drained = try command.run("worker", "--drain")
            try #require(drained.status == 0, "\(drained.stderr)")
            let states = try connection.query(
                "SELECT id, state FROM darkroom.jobs WHERE id IN ($1, $2) ORDER BY id", [.int(job), .int(named)]
            ).map { try $0["state"].decode(String.self) }
            #expect(states == ["succeeded", "succeeded"])

            // Each record says what made it: darkroom's version, the math, the filter and its LUT, the output.
            let recorded = try connection.query(
                """
                SELECT a.rendered_with::text AS json FROM darkroom.jobs AS j
                  JOIN darkroom.adjustments AS a ON a.id = j.adjustment_id WHERE j.id = $1
                """, [.int(named)])[0]["json"].decode(String.self)
            let provenance = try #require(
                try JSONSerialization.jsonObject(with: Data(recorded.utf8)) as? [String: Any])
            let version = try command.run("--version")
            #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == provenance["darkroom"] as? String)
            #expect(provenance["math"] as? [String: Int] == ["filter": RenderMath.versions["filter"]!])
            let filters = try #require(provenance["filters"] as? [[String: String]])
            #expect(filters == [["name": "dusk", "version": "1.0.0", "sha256": digest]])
            let output = try #require(provenance["output"] as? [String: Any])
            let quality = try #require(output["quality"] as? Int)
            #expect(output["chroma"] as? String == (quality >= 90 ? "4:4:4" : "4:2:0"))
            #expect(output["colour_profile"] as? String == "source" && output["display_longest_side"] as? Int == 2048)

            // The asset shows 1.0.0 now; the list says so.
            let list = try command.run("filter", "list")
            let rows = list.stdout.split(separator: "\n").map {
                $0.split(separator: " ", omittingEmptySubsequences: true)
            }
            #expect(rows.count == 4, "\(list.stdout)")
            #expect(rows[1].prefix(2) == ["dusk", "2.0.0-beta.1"] && rows[1][2] == "0")
            #expect(rows[2].prefix(4) == ["dusk", "1.1.0", "(newest)", "0"])
            #expect(rows[3].prefix(3) == ["dusk", "1.0.0", "1"])

            // A version is never changed, and not removed while an adjustment uses it.
            #expect(throws: DatabaseError.self) {
                try connection.query("UPDATE darkroom.filters SET sha256 = repeat('0', 64) WHERE version = '1.0.0'")
            }
            #expect(throws: DatabaseError.self) {
                try connection.query("DELETE FROM darkroom.filters WHERE name = 'dusk' AND version = '1.0.0'")
            }
            _ = try connection.query("DELETE FROM darkroom.filters WHERE name = 'dusk' AND version = '2.0.0-beta.1'")
        }
    }

    /// A filter upgrade's dry run reaches each asset whose current chain uses an older version of
    /// the filter in any layer (a middle one too), and only those; it queues nothing.
    @Test func upgradeDryRunCountsWhatTheCurrentChainsUse() throws {
        try Self.withMigrated { url, storage, command in
            let assets = try Self.upgradeLibrary(url, command)
            let connection = try DatabaseConnection(url)

            let jobsBefore = try connection.query("SELECT count(*) AS n FROM darkroom.jobs")[0]["n"].decode(Int64.self)
            let dryRun = try command.run("rerender", "--filter", "dusk", "--below-version", "2.0.0", "--dry-run")
            try #require(dryRun.status == 0, "\(dryRun.stderr)")
            #expect(
                dryRun.stdout
                    == "dusk 1.0.0\t2 asset(s) would be re-rendered\ndusk 1.1.0\t1 asset(s) would be re-rendered\n"
                    + "dry run: nothing queued\n", "\(dryRun.stdout)")
            // A version is not below itself, and nothing is below the first one.
            let newer = try command.run("rerender", "--filter", "dusk", "--below-version", "1.1.0", "--dry-run")
            #expect(newer.stdout.hasPrefix("dusk 1.0.0\t2 asset(s)") && !newer.stdout.contains("1.1.0"))
            let none = try command.run("rerender", "--filter", "dusk", "--below-version", "1.0.0", "--dry-run")
            #expect(none.stdout.contains("no asset shows dusk below 1.0.0"), "\(none.stdout)")
            // The rule the counts come from names the assets.
            let reached = try connection.query(
                """
                SELECT DISTINCT asset_id FROM darkroom.filter_rerender_scope('dusk', '2.0.0') ORDER BY asset_id
                """
            ).map { try $0["asset_id"].decode(Int64.self) }
            #expect(reached == [assets[0], assets[1], assets[4]])
            let jobsAfter = try connection.query("SELECT count(*) AS n FROM darkroom.jobs")[0]["n"].decode(Int64.self)
            #expect(jobsAfter == jobsBefore)

            // Refusals: an unknown filter or a bad version, and an upgrade to a version the filter lacks.
            let unknown = try command.run("rerender", "--filter", "noon", "--below-version", "2.0.0", "--dry-run")
            #expect(unknown.status == 1 && unknown.stderr.contains("filter 'noon' does not exist"), "\(unknown.stderr)")
            #expect(try command.run("rerender", "--filter", "dusk", "--below-version", "two", "--dry-run").status != 0)
            #expect(try command.run("rerender", "--filter", "dusk", "--dry-run").status != 0)
            let beyond = try command.run("rerender", "--filter", "dusk", "--below-version", "3.0.0")
            #expect(beyond.status == 1 && beyond.stderr.contains("no version at or above 3.0.0"), "\(beyond.stderr)")
            #expect(
                try command.run("rerender", "--filter", "dusk", "--below-version", "2.0.0", "--sample", "0").status != 0
            )
        }
    }

    /// Seven imported assets, rendered by a worker, whose current chains use filter `dusk`
    /// (versions 1.0.0, 1.1.0 and 2.0.0 added) like this — 0: dusk 1.0.0 alone. 1: filtster,
    /// dusk 1.0.0, filtster (the filter in the middle layer). 2: dusk 2.0.0. 3: sepia only.
    /// 4: dusk 1.1.0 under filtster. 5: dusk 1.0.0, reverted to its original. 6: dawn 1.0.0.
    /// An upgrade of dusk below 2.0.0 reaches 0, 1 and 4.
    static func upgradeLibrary(_ url: String, _ command: DarkroomCommand) throws -> [Int64] {
        for (version, file) in [("1.0.0", Self.grayscale), ("1.1.0", Self.identity), ("2.0.0", Self.identity)] {
            try #require(try command.run("filter", "add", "dusk", version, file).status == 0)
        }
        #expect(try command.run("filter", "add", "dawn", "1.0.0", Self.identity).status == 0)
        var assets: [Int64] = []
        for index in 1...7 {
            let imported = try command.run("import", Fixtures.exifSample("orientation/landscape_\(index).jpg").path)
            try #require(imported.status == 0, "\(imported.stderr)")
            assets.append(try #require(Int64(imported.stdout.split(separator: "\t")[0].dropFirst("asset ".count))))
        }
        let connection = try DatabaseConnection(url)
        let queue = JobQueue(connection, logger: .quiet)
        func edit(_ asset: Int64, _ json: String) throws {
            _ = try connection.query(
                "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::text)",
                [.int(asset), .text(json)])
        }
        func drain() throws {
            let drained = try command.run("worker", "--drain")
            try #require(drained.status == 0, "\(drained.stderr)")
        }
        // Another editor's edit stacks on the current render: a layer over or under the filter's.
        let filtster = FiltsterSettings(vignetteIntensity: 0.5, vignetteRadius: 0.9, sepiaIntensity: 0.3).archive()
        func layer(_ asset: Int64) throws {
            _ = try connection.query(
                "SELECT darkroom.enqueue_edit($1, 'com.shinobicontrols.filster', '1.0', $2::bytea)",
                [.int(asset), .bytes(filtster)])
        }
        let sepia = #"{"operations":[{"op":"sepia","intensity":0.3}]}"#
        func dusk(_ version: String) -> String {
            #"{"operations":[{"op":"filter","name":"dusk","version":""# + version + #""}]}"#
        }
        // 0: dusk 1.0.0 alone. 1: filtster, dusk 1.0.0, filtster (the filter in the middle layer).
        // 2: dusk 2.0.0 (current). 3: sepia only. 4: dusk 1.1.0 under filtster. 5: dusk 1.0.0,
        // reverted to its original. 6: dawn 1.0.0 (another filter).
        try edit(assets[0], dusk("1.0.0"))
        try layer(assets[1])
        try edit(assets[2], dusk("2.0.0"))
        try edit(assets[3], sepia)
        try edit(assets[4], dusk("1.1.0"))
        try edit(assets[5], dusk("1.0.0"))
        try edit(assets[6], #"{"operations":[{"op":"filter","name":"dawn"}]}"#)
        try drain()
        try edit(assets[1], dusk("1.0"))
        try layer(assets[4])
        _ = try queue.enqueueRevert(assetID: assets[5])
        try drain()
        try layer(assets[1])
        try drain()
        let chain = try AssetStore(connection).currentChain(of: assets[1])
        try #require(chain.count == 3)
        return assets
    }

    /// Bytes that no longer hash to what was recorded fail the job for good, with its own code.
    @Test func aChangedLUTFailsWithItsCode() throws {
        try Self.withMigrated { url, storage, command in
            let imported = try command.run("import", Fixtures.exifSample("canon_hdr_NO.jpg").path)
            let assetID = try #require(Int64(imported.stdout.split(separator: "\t")[0].dropFirst("asset ".count)))
            try #require(try command.run("filter", "add", "plain", "1.0.0", Self.identity).status == 0)
            let digest = try FilterDigest.of(Self.identity)
            let path = "\(storage)/filters/\(digest.prefix(2))/\(digest).cube"
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            bytes[bytes.count - 2] = UInt8(ascii: "0")  // the last point's blue 1 becomes 0
            try Data(bytes).write(to: URL(fileURLWithPath: path))

            let connection = try DatabaseConnection(url)
            let job = try connection.query(
                "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::text) AS id",
                [.int(assetID), .text(#"{"operations":[{"op":"filter","name":"plain"}]}"#)])[0]["id"]
                .decode(Int64.self)
            _ = try command.run("worker", "--drain")
            let row = try connection.query("SELECT state, last_error FROM darkroom.jobs WHERE id = $1", [.int(job)])[0]
            #expect(try row["state"].decode(String.self) == "failed")
            let error = try row["last_error"].decode(String.self)
            #expect(error.hasPrefix("filter_hash_mismatch:") && error.contains(digest), "\(error)")
        }
    }
}
