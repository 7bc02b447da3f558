import DarkroomAdjustments
import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// PhotoKit's editing model end to end: the same editor replaces its edit, another editor
/// layers on top, and every render equals a direct render of the chain it stands for.
@Suite(.serialized) struct LayeringTests {
    @Test func replaceLayerAndReplaceTheTopOfAChain() throws {
        try DarkroomCommand.withMigratedLibrary("layers") { command in
            let (url, storage) = (command.databaseURL, command.storage)
            let original = Fixtures.exifSample("canon_hdr_NO.jpg").path  // orientation 6
            let imported = try command.run("import", original)
            let assetID = try #require(Int64(imported.stdout.split(separator: "\t")[0].dropFirst("asset ".count)))
            let connection = try DatabaseConnection(url)

            let sepia = #"{"operations":[{"op":"sepia","intensity":0.6}]}"#
            let filtster = FiltsterSettings(vignetteIntensity: 2, vignetteRadius: 0.8, sepiaIntensity: 0.3).archive()
            let exposure = #"{"operations":[{"op":"exposure","ev":0.5}]}"#
            let posterize = #"{"operations":[{"op":"posterize","levels":5}]}"#
            // One edit at a time, each drained before the next, as an app would.
            func edit(_ identifier: String, _ version: String, _ data: [UInt8]) throws -> (
                id: Int64, base: Int64?, path: String
            ) {
                _ = try connection.query(
                    "SELECT darkroom.enqueue_edit($1, $2, $3, $4::bytea)",
                    [.int(assetID), .text(identifier), .text(version), .bytes(data)])
                let drained = try command.run("worker", "--drain")
                try #require(drained.status == 0, "\(drained.stderr)")
                let row = try connection.query(
                    """
                    SELECT a.id, a.base_adjustment_id, a.rendered_path FROM darkroom.assets s
                      JOIN darkroom.adjustments a ON a.id = s.current_adjustment_id WHERE s.id = $1
                    """, [.int(assetID)])[0]
                return (
                    try row["id"].decode(Int64.self), try row["base_adjustment_id"].decode(Int64?.self),
                    storage + "/" + (try row["rendered_path"].decode(String.self))
                )
            }
            let a = try edit("io.darkroom.pipeline", "1.0.0", Array(sepia.utf8))
            let b = try edit("com.shinobicontrols.filster", "1.0", filtster)
            let c = try edit("io.darkroom.pipeline", "1.0.0", Array(exposure.utf8))
            let d = try edit("io.darkroom.pipeline", "1.0.0", Array(posterize.utf8))
            #expect(a.base == nil, "a first edit renders from the original")
            #expect(b.base == a.id, "another editor layers on top of the current render")
            #expect(c.base == b.id, "and so does the pipeline over Filtster")
            #expect(d.base == b.id, "the same editor replaces the top layer, keeping the layers beneath")

            // Direct renders of the expected chains give the same bytes.
            let folder = NSTemporaryDirectory() + "darkroom-chain-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            func render(_ input: String, _ output: String, _ arguments: [String]) throws {
                let result = try command.run(["render", input, "-o", folder + "/" + output] + arguments)
                try #require(result.status == 0, "\(result.stderr)")
            }
            try render(original, "a.jpg", ["--data", sepia])
            let archivePath = folder + "/filtster.archive"
            try Data(filtster).write(to: URL(fileURLWithPath: archivePath))
            try render(
                folder + "/a.jpg", "b.jpg",
                [
                    "--format-identifier", "com.shinobicontrols.filster", "--format-version", "1.0",
                    "--data-file", archivePath,
                ])
            try render(folder + "/b.jpg", "d.jpg", ["--data", posterize])
            for (stored, direct) in [(a.path, "a.jpg"), (b.path, "b.jpg"), (d.path, "d.jpg")] {
                let expected = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + direct))
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: stored)) == expected,
                    "\(direct) differs from the worker's render")
            }
        }
    }
}
