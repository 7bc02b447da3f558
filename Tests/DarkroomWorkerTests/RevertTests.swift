import DarkroomAdjustments
import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// Replace, layer and revert end to end through the CLI, each final render compared byte for
/// byte with a direct `darkroom render` of the chain it should stand for.
@Suite(.serialized) struct RevertTests {
    /// An imported asset with a storage root, a CLI and a folder for direct renders.
    struct Scene {
        let command: DarkroomCommand
        let connection: DatabaseConnection
        let storage: String
        let folder: String
        let original: String
        let assetID: Int64

        /// The asset's current adjustment: id, base, what it re-renders, and its render's path.
        func current() throws -> (id: Int64, base: Int64?, rerenderOf: Int64?, path: String)? {
            try connection.query(
                """
                SELECT a.id, a.base_adjustment_id, a.rerender_of, a.rendered_path FROM darkroom.assets s
                  JOIN darkroom.adjustments a ON a.id = s.current_adjustment_id WHERE s.id = $1
                """, [.int(assetID)]
            ).first.map { row in
                (
                    try row["id"].decode(Int64.self), try row["base_adjustment_id"].decode(Int64?.self),
                    try row["rerender_of"].decode(Int64?.self),
                    storage + "/" + (try row["rendered_path"].decode(String.self))
                )
            }
        }

        func enqueue(_ identifier: String, _ version: String, _ data: [UInt8]) throws {
            _ = try connection.query(
                "SELECT darkroom.enqueue_edit($1, $2, $3, $4::bytea)",
                [.int(assetID), .text(identifier), .text(version), .bytes(data)])
        }

        func drain(concurrency: Int = 1) throws {
            let drained = try command.run("worker", "--drain", "--concurrency", "\(concurrency)")
            try #require(drained.status == 0, "\(drained.stderr)")
        }

        /// `darkroom render` of `input` into the scratch folder; returns the output's path.
        @discardableResult
        func render(_ input: String, _ output: String, _ arguments: [String]) throws -> String {
            let path = folder + "/" + output
            let result = try command.run(["render", input, "-o", path] + arguments)
            try #require(result.status == 0, "\(result.stderr)")
            return path
        }

        func expectSameBytes(_ stored: String, _ direct: String, _ comment: Comment) throws {
            let expected = try Data(contentsOf: URL(fileURLWithPath: direct))
            #expect(try Data(contentsOf: URL(fileURLWithPath: stored)) == expected, comment)
        }
    }

    func withScene(_ body: (Scene) throws -> Void) throws {
        try TestDatabase.withFreshDatabase { url in
            let storage = NSTemporaryDirectory() + "darkroom-revert-" + UUID().uuidString
            let folder = NSTemporaryDirectory() + "darkroom-revert-direct-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer {
                try? FileManager.default.removeItem(atPath: storage)
                try? FileManager.default.removeItem(atPath: folder)
            }
            let command = DarkroomCommand(databaseURL: url, storage: storage)
            try #require(try command.run("migrate").status == 0)
            let original = Fixtures.exifSample("canon_hdr_NO.jpg").path  // orientation 6
            let imported = try command.run("import", original)
            let assetID = try #require(Int64(imported.stdout.split(separator: "\t")[0].dropFirst("asset ".count)))
            try body(
                Scene(
                    command: command, connection: try DatabaseConnection(url), storage: storage, folder: folder,
                    original: original, assetID: assetID))
        }
    }

    static let sepia = #"{"operations":[{"op":"sepia","intensity":0.6}]}"#
    static let posterize = #"{"operations":[{"op":"posterize","levels":5}]}"#
    static let exposure = #"{"operations":[{"op":"exposure","ev":-0.7}]}"#
    static let filtster = FiltsterSettings(vignetteIntensity: 2, vignetteRadius: 0.8, sepiaIntensity: 0.3).archive()
    static let chromaKey = ChromaKeySettings(threshold: 0.4).archive()

    @Test func revertLastReplaysTheRestAndRevertRestoresTheOriginal() throws {
        try withScene { scene in
            // A three-layer chain: pipeline, Filtster on it, ChromaKey on that.
            try scene.enqueue("io.darkroom.pipeline", "1.0.0", Array(Self.sepia.utf8))
            try scene.drain()
            let a = try #require(try scene.current())
            try scene.enqueue("com.shinobicontrols.filster", "1.0", Self.filtster)
            try scene.drain()
            let b = try #require(try scene.current())
            try scene.enqueue("com.shinobicontrols.chromakey", "1.0", Self.chromaKey)
            try scene.drain()
            let c = try #require(try scene.current())
            #expect(b.base == a.id && c.base == b.id)

            // --last removes ChromaKey; pipeline and Filtster are rendered again from the original.
            let queued = try scene.command.run("revert", "--asset", "\(scene.assetID)", "--last")
            #expect(queued.status == 0, "\(queued.stderr)")
            try scene.drain()
            let top = try #require(try scene.current())
            #expect(top.rerenderOf == b.id, "the new top layer re-renders Filtster's edit")
            let bottomID = try #require(top.base)
            let bottom = try #require(
                try scene.connection.query(
                    "SELECT id, base_adjustment_id, rerender_of, job_id FROM darkroom.adjustments WHERE id = $1",
                    [.int(bottomID)]
                ).first)
            #expect(try bottom["rerender_of"].decode(Int64?.self) == a.id)
            #expect(
                try bottom["base_adjustment_id"].decode(Int64?.self) == nil, "the replayed chain starts at the original"
            )
            #expect(try bottom["job_id"].decode(Int64?.self) == nil, "only the top layer is the job's result")

            let directA = try scene.render(scene.original, "a.jpg", ["--data", Self.sepia])
            let archive = scene.folder + "/filtster.archive"
            try Data(Self.filtster).write(to: URL(fileURLWithPath: archive))
            let directB = try scene.render(
                directA, "b.jpg",
                [
                    "--format-identifier", "com.shinobicontrols.filster",
                    "--format-version", "1.0", "--data-file", archive,
                ])
            try scene.expectSameBytes(
                top.path, directB, "revert --last equals a direct render of pipeline then Filtster")

            // A plain revert goes back to the original; the history keeps everything.
            #expect(try scene.command.run("revert", "--asset", "\(scene.assetID)").status == 0)
            try scene.drain()
            #expect(try scene.current() == nil)
            let counts = try scene.connection.query(
                """
                SELECT (SELECT count(*) FROM darkroom.adjustments WHERE asset_id = $1) AS adjustments,
                       (SELECT string_agg(action, ',' ORDER BY id) FROM darkroom.asset_history WHERE asset_id = $1) AS actions
                """, [.int(scene.assetID)])[0]
            #expect(try counts["adjustments"].decode(Int.self) == 5, "3 edits + 2 replayed layers, none removed")
            #expect(try counts["actions"].decode(String.self) == "edit,edit,edit,revert_last,revert")

            let history = try scene.command.run("history", "--asset", "\(scene.assetID)")
            #expect(history.status == 0, "\(history.stderr)")
            #expect(history.stdout.contains("shows: the original"))
            #expect(history.stdout.contains("revert_last"))
            #expect(history.stdout.contains("re-render of \(b.id)"))

            // Nothing left to revert: refused with the reason, exit 1.
            let refused = try scene.command.run("revert", "--asset", "\(scene.assetID)")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("has no edits to revert"), "\(refused.stderr)")
        }
    }

    /// Edits, a revert and another edit queued together are applied in queue order, even by
    /// two concurrent slots: the last edit renders from the original, not on top of anything.
    @Test func queuedEditsAndRevertsApplyInOrder() throws {
        try withScene { scene in
            try scene.enqueue("io.darkroom.pipeline", "1.0.0", Array(Self.sepia.utf8))
            try scene.enqueue("com.shinobicontrols.filster", "1.0", Self.filtster)
            _ = try scene.connection.query("SELECT darkroom.enqueue_revert($1)", [.int(scene.assetID)])
            try scene.enqueue("io.darkroom.pipeline", "1.0.0", Array(Self.posterize.utf8))
            try scene.enqueue("io.darkroom.pipeline", "1.0.0", Array(Self.exposure.utf8))
            try scene.drain(concurrency: 2)

            let final = try #require(try scene.current())
            #expect(
                final.base == nil, "exposure replaces posterize, which was rendered from the original after the revert")
            let direct = try scene.render(scene.original, "exposure.jpg", ["--data", Self.exposure])
            try scene.expectSameBytes(final.path, direct, "the last edit equals a direct render from the original")
            let actions = try scene.connection.query(
                "SELECT string_agg(action, ',' ORDER BY id) AS actions FROM darkroom.asset_history WHERE asset_id = $1",
                [.int(scene.assetID)])[0]["actions"].decode(String.self)
            #expect(actions == "edit,edit,revert,edit,edit")
        }
    }

    /// `darkroom rerender` queues the batch, `status --batch` reports it, `--follow` without a
    /// terminal prints plain lines and ends when the batch does.
    @Test func rerenderABatchAndFollowItsProgress() throws {
        try withScene { scene in
            try scene.enqueue("io.darkroom.pipeline", "1.0.0", Array(Self.sepia.utf8))
            try scene.drain()
            let before = try #require(try scene.current())
            let queued = try scene.command.run(
                "rerender", "--format-identifier", "io.darkroom.pipeline", "--batch", "fix")
            #expect(queued.status == 0, "\(queued.stderr)")
            #expect(queued.stdout.contains("queued 1 re-render job(s) in batch fix"))
            let waiting = try scene.command.run("status", "--batch", "fix")
            #expect(
                waiting.stdout.hasPrefix("fix: 0/1 done (0 succeeded, 0 failed), 1 remaining, ETA"), "\(waiting.stdout)"
            )

            try scene.drain()
            let followed = try scene.command.run("status", "--batch", "fix", "--follow", "--interval", "0.1")
            #expect(followed.status == 0, "\(followed.stderr)")
            #expect(
                followed.stdout.hasPrefix("fix: 1/1 done (1 succeeded, 0 failed), 0 remaining"), "\(followed.stdout)")
            let after = try #require(try scene.current())
            #expect(after.rerenderOf == before.id && after.id != before.id)
            try scene.expectSameBytes(after.path, before.path, "the same code renders the same bytes")

            let unknown = try scene.command.run("status", "--batch", "nope")
            #expect(unknown.status == 1 && unknown.stderr.contains("there is no batch nope"))
            let badVersion = try scene.command.run(
                "rerender", "--format-identifier", "io.darkroom.pipeline", "--below-version", "1.x")
            #expect(badVersion.status != 0 && badVersion.stderr.contains("not a semantic version"))
        }
    }
}
