import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// Renditions defined as data reach a worker's next job: the CLI and the operator's SQL define
/// them, a drain writes them beside the render, and the record lists them in
/// `darkroom.adjustment_renditions`, where a new version marks them stale.
@Suite(.serialized) struct RenditionJobTests {
    static let edit = #"{"operations":[{"op":"exposure","ev":0.2}]}"#

    @Test func aDrainWritesEveryCurrentRenditionAndRecordsIt() throws {
        try DarkroomCommand.withMigratedLibrary("renditions") { command in
            let (url, storage) = (command.databaseURL, command.storage)
            let added = try command.run(
                "rendition", "add", "thumb", "--format", "webp", "--longest-side", "320", "--quality", "75")
            try #require(added.status == 0, "\(added.stderr)")
            #expect(added.stdout.contains("rendition thumb version 1"))
            let connection = try DatabaseConnection(url)
            // The operator API, from plain SQL.
            _ = try connection.query(
                "SELECT darkroom.add_rendition('share', 'jpeg', 1024, metadata => 'no-location', color => 'srgb')")
            let refused = try command.run(
                "rendition", "add", "big", "--format", "webp", "--longest-side", "20000")
            #expect(refused.status != 0 && refused.stderr.contains("16 to 16383"), "\(refused.stderr)")

            let imported = try command.run("import", Fixtures.exifSample("gps/DSCN0010.jpg").path)
            try #require(imported.status == 0, "\(imported.stderr)")
            let asset = try #require(Int64(imported.stdout.split(separator: "\t")[0].dropFirst("asset ".count)))
            _ = try connection.query(
                "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::bytea)",
                [.int(asset), .bytes(Array(Self.edit.utf8))])
            let drained = try command.run("worker", "--drain")
            try #require(drained.status == 0, "\(drained.stderr)")

            let rows = try connection.query(
                """
                SELECT name, version, format, path, width, height, bytes, state
                  FROM darkroom.adjustment_renditions WHERE asset_id = $1 ORDER BY name
                """, [.int(asset)])
            #expect(rows.map { $0["name"].string } == ["display", "share", "thumb"])
            #expect(rows.map { $0["format"].string } == ["jpeg", "jpeg", "webp"])
            // The camera's photo is 640 × 480: no rendition is larger than the photo.
            #expect(rows.map { $0["width"].int } == [640, 640, 320])
            for row in rows {
                let path = storage + "/" + (row["path"].string ?? "")
                let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
                #expect(size.map(Int64.init) == row["bytes"].int64, "\(path)")
            }
            let share = storage + "/" + (rows[1]["path"].string ?? "")
            let tags = try ExifTool.tags(["-G", "-GPSLatitude", "-Make", share])
            #expect(tags["EXIF:GPSLatitude"] == nil && tags["EXIF:Make"] as? String == "NIKON", "\(tags)")

            // A new version makes the thumbnails written with the old one stale.
            let again = try command.run("rendition", "add", "thumb", "--format", "avif", "--longest-side", "400")
            try #require(again.status == 0, "\(again.stderr)")
            let states = try connection.query(
                "SELECT name, state FROM darkroom.adjustment_renditions WHERE asset_id = $1 ORDER BY name",
                [.int(asset)])
            #expect(states.map { $0["state"].string } == ["current", "current", "stale"])
            let listed = try command.run("rendition", "list")
            #expect(listed.stdout.contains("thumb") && listed.stdout.contains("replaced"), "\(listed.stdout)")

            // `rerender --stale` counts it under its own reason, then queues a renditions job: the
            // new version scaled from the layer's stored render, recorded on the same layer.
            let dryRun = try command.run("rerender", "--stale", "--dry-run")
            #expect(dryRun.stdout.contains("rendition\t1 asset(s)"), "\(dryRun.stdout)")
            let before = try connection.query(
                """
                SELECT s.current_adjustment_id, a.rendered_path, r.path AS thumb FROM darkroom.assets AS s
                  JOIN darkroom.adjustments AS a ON a.id = s.current_adjustment_id
                  JOIN darkroom.adjustment_rendition_files AS r ON r.adjustment_id = a.id AND r.name = 'thumb'
                 WHERE s.id = $1
                """, [.int(asset)])[0]
            let oldThumb = storage + "/" + (before["thumb"].string ?? "")
            #expect(FileManager.default.fileExists(atPath: oldThumb))
            let queued = try command.run("rerender", "--stale")
            try #require(queued.status == 0, "\(queued.stderr)")
            let kinds = try connection.query(
                "SELECT kind FROM darkroom.jobs WHERE asset_id = $1 AND state = 'queued'", [.int(asset)])
            #expect(kinds.map { $0["kind"].string } == ["renditions"])
            let redrained = try command.run("worker", "--drain")
            try #require(redrained.status == 0, "\(redrained.stderr)")
            let after = try connection.query(
                """
                SELECT s.current_adjustment_id, a.rendered_path FROM darkroom.assets AS s
                  JOIN darkroom.adjustments AS a ON a.id = s.current_adjustment_id WHERE s.id = $1
                """, [.int(asset)])[0]
            #expect(after["current_adjustment_id"].int64 == before["current_adjustment_id"].int64, "the look stayed")
            #expect(after["rendered_path"].string == before["rendered_path"].string)
            #expect(!FileManager.default.fileExists(atPath: oldThumb), "the replaced thumbnail is deleted")
            let current = try connection.query(
                """
                SELECT r.name, r.version, r.format, r.path, r.state FROM darkroom.adjustment_renditions AS r
                  JOIN darkroom.assets AS s ON s.current_adjustment_id = r.adjustment_id
                 WHERE s.id = $1 ORDER BY r.name
                """, [.int(asset)])
            #expect(current.map { $0["state"].string } == ["current", "current", "current"])
            #expect(try connection.query("SELECT what, key FROM darkroom.library_counts_drift()").isEmpty)
            #expect(current[2]["version"].int == 2 && current[2]["format"].string == "avif")
            let avif = storage + "/" + (current[2]["path"].string ?? "")
            let thumb = try ReferenceImages.decode(avif)
            #expect(thumb.width == 400)
            // Scaled from the stored render: close to libvips' downscale of it (within what AVIF's
            // default quality, 60, leaves of a camera's fine detail at 400 pixels).
            let full = storage + "/" + (after["rendered_path"].string ?? "")
            let reference = try ReferenceImages.scaled(full, width: thumb.width, height: thumb.height)
            #expect(thumb.psnr(against: reference) > 26)
            let afterwards = try command.run("rerender", "--stale", "--dry-run")
            #expect(afterwards.stdout.contains("no asset is stale"), "\(afterwards.stdout)")

            // Removing a rendition leaves its files to the clean-up; its records say so.
            let removed = try command.run("rendition", "remove", "share")
            #expect(removed.status == 0, "\(removed.stderr)")
            let shareStates = try connection.query(
                "SELECT state FROM darkroom.adjustment_renditions WHERE asset_id = $1 AND name = 'share'",
                [.int(asset)])
            #expect(shareStates.map { $0["state"].string } == ["removed"])
        }
    }
}
