import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImport
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// Importing as Photos exports: the original is the asset, the `.AAE` its `com.apple.photo`
/// layer with Apple's render stored as it is (or a render queued), and PhotoKit's rules on top.
@Suite(.serialized) struct AppleImportTests {
    @Test func namesBesideAnOriginalByApplesConventions() {
        let folder = [
            "IMG_1234.HEIC", "img_1234.aae", "IMG_O1234.AAE", "IMG_E1234.heic", "IMG_12345.HEIC", "IMG_E12345.mov",
            "wedding.jpg", "wedding.AAE", "wedding_edited.jpg", "notes.txt",
        ]
        #expect(
            AppleExportFiles.find(for: "IMG_1234.HEIC", among: folder)
                == AppleExportFiles(
                    original: "IMG_1234.HEIC", sidecar: "img_1234.aae", originalSidecar: "IMG_O1234.AAE",
                    render: "IMG_E1234.heic"))
        #expect(
            AppleExportFiles.find(for: "IMG_12345.HEIC", among: folder) == AppleExportFiles(original: "IMG_12345.HEIC"))
        #expect(
            AppleExportFiles.find(for: "wedding.jpg", among: folder)
                == AppleExportFiles(original: "wedding.jpg", sidecar: "wedding.AAE", render: "wedding_edited.jpg"))
        #expect(AppleExportFiles.originals(among: folder) == ["IMG_1234.HEIC", "IMG_12345.HEIC", "wedding.jpg"])
    }

    /// A folder as exported: IMG_1234.JPG, its IMG_1234.AAE and Photos' IMG_E1234.JPG.
    static func exportFolder(withRender: Bool) throws -> String {
        let folder = NSTemporaryDirectory() + "darkroom-export-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let apple = Fixtures.root.appendingPathComponent("apple")
        var copies = [("wedding.jpg", "IMG_1234.JPG"), ("wedding.AAE", "IMG_1234.AAE")]
        if withRender { copies.append(("wedding_edited.jpg", "IMG_E1234.JPG")) }
        for (from, to) in copies {
            try FileManager.default.copyItem(
                atPath: apple.appendingPathComponent(from).path, toPath: folder + "/" + to)
        }
        return folder
    }

    @Test func applesRenderIsTheLayersRenderAndPhotoKitsRulesHold() throws {
        try TestDatabase.withFreshDatabase { url in
            let storage = NSTemporaryDirectory() + "darkroom-apple-import-" + UUID().uuidString
            let folder = try Self.exportFolder(withRender: true)
            defer {
                try? FileManager.default.removeItem(atPath: storage)
                try? FileManager.default.removeItem(atPath: folder)
            }
            let command = DarkroomCommand(databaseURL: url, storage: storage)
            try #require(try command.run("migrate").status == 0)
            let imported = try command.run("import", folder)
            try #require(imported.status == 0, "\(imported.stderr)")
            let lines = imported.stdout.split(separator: "\n")
            #expect(lines.count == 1, "only the original is an asset: \(imported.stdout)")
            #expect(imported.stdout.contains("its render Apple's IMG_E1234.JPG"))
            let assetID = try #require(Int64(lines[0].split(separator: "\t")[0].dropFirst("asset ".count)))
            let connection = try DatabaseConnection(url)
            func current() throws -> (id: Int64, format: String, version: String, data: [UInt8], path: String) {
                let row = try connection.query(
                    """
                    SELECT a.id, a.format_identifier, a.format_version, a.data, a.rendered_path FROM darkroom.assets s
                      JOIN darkroom.adjustments a ON a.id = s.current_adjustment_id WHERE s.id = $1
                    """, [.int(assetID)])[0]
                return (
                    try row[0].decode(Int64.self), try row[1].decode(String.self), try row[2].decode(String.self),
                    try row[3].decode([UInt8].self), try row[4].decode(String.self)
                )
            }
            let apple = try current()
            let sidecar = try AppleSidecar.decode(Fixtures.bytes(of: URL(fileURLWithPath: folder + "/IMG_1234.AAE")))
            #expect(apple.format == "com.apple.photo" && apple.version == "1.4" && apple.data == sidecar.data)
            // Stored as it is: the same bytes as Photos' render.
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: storage + "/" + apple.path))
                    == Data(contentsOf: URL(fileURLWithPath: folder + "/IMG_E1234.JPG")))
            let history = try connection.query(
                "SELECT action FROM darkroom.asset_history WHERE asset_id = $1 ORDER BY id", [.int(assetID)]
            ).map { try $0[0].decode(String.self) }
            #expect(history == ["import"])
            #expect(
                try command.run("history", "--asset", String(assetID)).stdout.contains("com.apple.photo 1.4 (Crop)"))

            // Apple's render has no renditions: `rerender --stale` queues a renditions job, which
            // scales them from it and records them on the Apple layer, which stays as it is.
            try #require(
                try command.run("rendition", "add", "thumb", "--format", "webp", "--longest-side", "320").status == 0)
            let dryRun = try command.run("rerender", "--stale", "--dry-run")
            #expect(dryRun.stdout.contains("rendition\t1 asset(s)"), "\(dryRun.stdout)")
            try #require(try command.run("rerender", "--stale").status == 0)
            let kinds = try connection.query(
                "SELECT kind FROM darkroom.jobs WHERE asset_id = $1 AND state = 'queued'", [.int(assetID)])
            let kindNames = try kinds.map { try $0[0].decode(String.self) }
            #expect(kindNames == ["renditions"])
            let drained = try command.run("worker", "--drain")
            try #require(drained.status == 0, "\(drained.stderr)")
            let kept = try current()
            #expect(kept.id == apple.id && kept.path == apple.path)
            let written = try connection.query(
                "SELECT name, path, width, height FROM darkroom.adjustment_renditions WHERE adjustment_id = $1 ORDER BY name",
                [.int(apple.id)])
            let names = try written.map { try $0[0].decode(String.self) }
            let widths = try written.map { try $0[2].decode(Int.self) }
            #expect(names == ["display", "thumb"])
            // Photos' render is 1526 × 1325: the display copy is not upscaled.
            #expect(widths == [1526, 320])
            for row in written {
                let file = storage + "/" + (try row[1].decode(String.self))
                #expect(FileManager.default.fileExists(atPath: file), "\(file)")
            }
            let thumb = try ReferenceImages.decode(storage + "/" + (try written[1][1].decode(String.self)))
            let reference = try ReferenceImages.scaled(
                folder + "/IMG_E1234.JPG", width: thumb.width, height: thumb.height)
            #expect(thumb.psnr(against: reference) > 30)
            let afterwards = try command.run("rerender", "--stale", "--dry-run")
            #expect(afterwards.stdout.contains("no asset is stale"), "\(afterwards.stdout)")
            #expect(try connection.query("SELECT what, key FROM darkroom.library_counts_drift()").isEmpty)

            // Another editor cannot handle com.apple.photo: its edit layers on Apple's render.
            _ = try connection.query(
                "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::bytea)",
                [.int(assetID), .bytes(Array(#"{"operations":[{"op":"sepia","intensity":0.5}]}"#.utf8))])
            try #require(try command.run("worker", "--drain").status == 0)
            let sepia = try current()
            let base = try connection.query(
                "SELECT base_adjustment_id FROM darkroom.adjustments WHERE id = $1", [.int(sepia.id)])[0][0].decode(
                    Int64?.self)
            #expect(sepia.format == "io.darkroom.pipeline" && base == apple.id)
            let rendered = try DecodedImage(path: storage + "/" + sepia.path)
            #expect(rendered.width == 1526 && rendered.height == 1325)

            // Revert-last drops the top layer: the Apple layer again, Apple's render kept.
            try #require(try command.run("revert", "--asset", String(assetID), "--last").status == 0)
            try #require(try command.run("worker", "--drain").status == 0)
            let back = try current()
            #expect(back.format == "com.apple.photo" && back.path == apple.path && back.data == apple.data)
            // Revert goes to the original.
            try #require(try command.run("revert", "--asset", String(assetID)).status == 0)
            try #require(try command.run("worker", "--drain").status == 0)
            let shown = try connection.query(
                "SELECT current_adjustment_id FROM darkroom.assets WHERE id = $1", [.int(assetID)])[0][0].decode(
                    Int64?.self)
            #expect(shown == nil)
            // Importing again never stacks the edit a second time.
            let again = try command.run("import", folder + "/IMG_1234.JPG")
            #expect(again.stdout.contains("\texisting\t"))
        }
    }

    @Test func withoutApplesRenderTheImportQueuesOne() throws {
        try TestDatabase.withFreshDatabase { url in
            let storage = NSTemporaryDirectory() + "darkroom-apple-import-" + UUID().uuidString
            let folder = try Self.exportFolder(withRender: false)
            defer {
                try? FileManager.default.removeItem(atPath: storage)
                try? FileManager.default.removeItem(atPath: folder)
            }
            let command = DarkroomCommand(databaseURL: url, storage: storage)
            try #require(try command.run("migrate").status == 0)
            let imported = try command.run("import", folder + "/IMG_1234.JPG")
            try #require(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("queued as job"))
            try #require(try command.run("worker", "--drain").status == 0)
            let connection = try DatabaseConnection(url)
            let row = try connection.query(
                """
                SELECT a.format_identifier, a.rendered_path FROM darkroom.assets s
                  JOIN darkroom.adjustments a ON a.id = s.current_adjustment_id
                """)[0]
            #expect(try row[0].decode(String.self) == "com.apple.photo")
            let rendered = try DecodedImage(path: storage + "/" + (try row[1].decode(String.self)))
            #expect(rendered.width == 1526 && rendered.height == 1325)
        }
    }
}
