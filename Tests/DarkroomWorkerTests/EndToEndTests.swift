import ByteStreams
import DarkroomDatabase
import DarkroomMetadata
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import LibPQ
import Testing

/// migrate → import → SQL enqueue → worker --drain, through the real executable and a
/// real PostgreSQL, then checks the files and rows it left.
@Suite(.serialized) struct EndToEndTests {
    struct Fixture {
        let command: DarkroomCommand
        let connection: DatabaseConnection
        let storage: String

        func scalar(_ sql: String, _ binds: [PostgresBind] = []) throws -> String? {
            try connection.query(sql, binds)[0][0].string
        }

        func enqueue(_ assetID: Int64, _ json: String) throws -> Int64 {
            try connection.query(
                "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::jsonb) AS id",
                [.int(assetID), .text(json)])[0]["id"].decode(Int64.self)
        }

        /// `asset N` from an import line.
        func importedID(_ line: Substring) throws -> Int64 {
            let fields = line.split(separator: "\t")
            return try #require(Int64(fields[0].dropFirst("asset ".count)))
        }
    }

    func withFixture(_ body: (Fixture) throws -> Void) throws {
        try DarkroomCommand.withMigratedLibrary("e2e") { command in
            let connection = try DatabaseConnection(command.databaseURL)
            try body(Fixture(command: command, connection: connection, storage: command.storage))
        }
    }

    @Test func photosFlowThroughTheWholePipeline() throws {
        try withFixture { f in
            let gps = Fixtures.exifSample("gps/DSCN0010.jpg").path
            let rotated = Fixtures.exifSample("canon_hdr_NO.jpg").path
            let imported = try f.command.run("import", gps, rotated)
            try #require(imported.status == 0, "import: \(imported.stderr)")
            let lines = imported.stdout.split(separator: "\n")
            try #require(lines.count == 2)
            let gpsID = try f.importedID(lines[0])
            let rotatedID = try f.importedID(lines[1])

            // Re-importing prints the existing id and copies nothing.
            let again = try f.command.run("import", gps)
            #expect(again.stdout.hasPrefix("asset \(gpsID)\texisting"))

            let sepiaJob = try f.enqueue(gpsID, #"{"operations":[{"op":"sepia","intensity":0.8},{"op":"vignette"}]}"#)
            let exposureJob = try f.enqueue(rotatedID, #"{"operations":[{"op":"exposure","ev":0.5}]}"#)
            let drained = try f.command.run("worker", "--drain", "--concurrency", "2")
            #expect(drained.status == 0, "worker: \(drained.stderr)")
            #expect(drained.stdout.contains("2 succeeded, 0 failed"))

            // The asset carries the original's metadata.
            let asset = try f.connection.query(
                """
                SELECT latitude, longitude, creation_date, orientation, pixel_width, pixel_height,
                       current_adjustment_id FROM darkroom.assets WHERE id = $1
                """, [.int(gpsID)])[0]
            #expect(abs(try asset["latitude"].decode(Double.self) - 43.467448) < 1e-5)
            #expect(abs(try asset["longitude"].decode(Double.self) - 11.885127) < 1e-5)
            #expect(try asset["creation_date"].decode(Date.self) == Date(timeIntervalSince1970: 1_224_692_919))
            #expect(try asset["pixel_width"].decode(Int.self) == 640)

            // One adjustment per job, current on its asset, pointing at a complete JPEG.
            for (job, assetID, size) in [(sepiaJob, gpsID, (640, 480)), (exposureJob, rotatedID, (1536, 2048))] {
                let row = try f.connection.query(
                    """
                    SELECT a.id, a.rendered_path, a.rendered_width, a.rendered_height, a.rendered_bytes, a.format_version,
                           s.current_adjustment_id, j.state
                      FROM darkroom.adjustments a JOIN darkroom.assets s ON s.id = a.asset_id JOIN darkroom.jobs j ON j.id = a.job_id
                     WHERE a.job_id = $1
                    """, [.int(job)])
                try #require(row.count == 1)
                let adjustment = row[0]
                #expect(
                    try adjustment["current_adjustment_id"].decode(Int64.self) == adjustment["id"].decode(Int64.self))
                #expect(try adjustment["state"].decode(String.self) == "succeeded")
                #expect(try adjustment["format_version"].decode(String.self) == "1.0.0")
                let path = f.storage + "/" + (try adjustment["rendered_path"].decode(String.self))
                #expect(try adjustment["rendered_path"].decode(String.self) == "renders/\(assetID)/\(job).jpg")
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                #expect(
                    (attributes[.size] as? NSNumber)?.int64Value
                        == (try adjustment["rendered_bytes"].decode(Int64.self)))
                let decoder = try JPEGDecoder(source: FileSource(path: path))
                #expect(decoder.header.width == size.0 && decoder.header.height == size.1)
                #expect(try adjustment["rendered_width"].decode(Int.self) == size.0)
                // Orientation is baked in: the render's EXIF says 1 and carries the new size.
                let exif = MetadataReader.read(app1Payload: decoder.header.exifPayload)
                #expect(exif.metadata.orientation == 1)
                _ = try decoder.start()
                // The display-size copy sits beside it, longest side at most 2048.
                let display = try JPEGDecoder(
                    source: FileSource(path: f.storage + "/renders/\(assetID)/\(job).display.jpg")
                ).header
                #expect(max(display.width, display.height) <= 2048 && display.width * size.1 == display.height * size.0)
            }
            // The rotated original was 2048×1536 stored with orientation 6.
            #expect(
                try f.scalar("SELECT orientation::text FROM darkroom.assets WHERE id = $1", [.int(rotatedID)]) == "6")
            // No temporary files are left in the renders.
            let leftovers = try FileManager.default.subpathsOfDirectory(atPath: f.storage + "/renders").filter {
                $0.hasSuffix(".partial")
            }
            #expect(leftovers.isEmpty)
        }
    }

    /// Each bad original fails its own job with the file and the reason; the worker goes on.
    @Test func badOriginalsFailTheirJobsAndTheWorkerGoesOn() throws {
        try withFixture { f in
            let good = try f.importedID(
                try f.command.run("import", Fixtures.exifSample("gps/DSCN0012.jpg").path).stdout.split(separator: "\n")[
                    0])
            let bad = f.storage + "/originals/bad"
            try FileManager.default.createDirectory(atPath: bad, withIntermediateDirectories: true)
            let intact = try Data(contentsOf: Fixtures.exifSample("gps/DSCN0010.jpg"))
            try intact.prefix(intact.count / 2).write(to: URL(fileURLWithPath: bad + "/truncated.jpg"))
            try FileManager.default.copyItem(
                atPath: Fixtures.exifSample("corrupted.jpg").path, toPath: bad + "/corrupted.jpg")
            _ = FileManager.default.createFile(atPath: bad + "/empty.jpg", contents: Data())
            try Data("not a photo at all\n".utf8).write(to: URL(fileURLWithPath: bad + "/notes.jpg"))
            // Register them as if their files were damaged after import.
            let cases: [(file: String, reason: String)] = [
                ("truncated.jpg", "inside its scan data"),
                ("corrupted.jpg", "Corrupt JPEG data"),
                ("empty.jpg", "Empty input file"),
                ("notes.jpg", "Not a JPEG file"),
                ("missing.jpg", "is missing"),
            ]
            var jobs: [(Int64, String, String)] = []
            for (index, item) in cases.enumerated() {
                let id = try f.connection.query(
                    """
                    INSERT INTO darkroom.assets (original_path, content_sha256, byte_size, pixel_width, pixel_height, orientation)
                    VALUES ($1, $2, 0, 640, 480, 1) RETURNING id
                    """, [.text("originals/bad/\(item.file)"), .text(String(repeating: "\(index)", count: 64))])[0][
                        "id"
                    ].decode(Int64.self)
                jobs.append((try f.enqueue(id, #"{"operations":[{"op":"sepia"}]}"#), item.file, item.reason))
            }
            let goodJob = try f.enqueue(good, #"{"operations":[{"op":"exposure","ev":-1}]}"#)
            let drained = try f.command.run("worker", "--drain")
            #expect(drained.status == 3, "some jobs failed: \(drained.stdout)")
            #expect(drained.stdout.contains("1 succeeded, 5 failed"))
            for (job, file, reason) in jobs {
                let row = try f.connection.query(
                    "SELECT state, last_error, attempts FROM darkroom.jobs WHERE id = $1", [.int(job)])[0]
                let error = try row["last_error"].decode(String.self)
                #expect(try row["state"].decode(String.self) == "failed", "\(file)")
                #expect(error.contains("originals/bad/\(file)") && error.contains(reason), "\(file): \(error)")
                #expect(try row["attempts"].decode(Int.self) == 1, "damaged files fail at once, without retries")
            }
            #expect(try f.scalar("SELECT state FROM darkroom.jobs WHERE id = $1", [.int(goodJob)]) == "succeeded")
            #expect(
                try f.scalar("SELECT count(*)::text FROM darkroom.adjustments") == "1", "no record for a failed render")
            // No damaged render was written.
            let renders = try FileManager.default.subpathsOfDirectory(atPath: f.storage + "/renders").filter {
                $0.hasSuffix(".jpg") || $0.hasSuffix(".partial")
            }
            #expect(renders.sorted() == ["\(good)/\(goodJob).display.jpg", "\(good)/\(goodJob).jpg"])
        }
    }

    /// A real camera file whose EXIF IFD offset points past the end of the block.
    static func fileWithCorruptExif() throws -> String {
        var bytes = [UInt8](try Data(contentsOf: Fixtures.exifSample("gps/DSCN0010.jpg")))
        // APP1 starts at byte 2: FFE1, length, "Exif\0\0", then the TIFF header "II*\0" + IFD0 offset.
        let tiff = bytes.firstRange(of: Array("Exif".utf8) + [0, 0])!.upperBound
        #expect(bytes[tiff] == 0x49 && bytes[tiff + 1] == 0x49, "DSCN0010 is little-endian")
        bytes.replaceSubrange((tiff + 4)..<(tiff + 8), with: [0xF0, 0xFF, 0x00, 0x00])
        let path = NSTemporaryDirectory() + "darkroom-corrupt-exif-\(UUID().uuidString).jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// EXIF that cannot be read leaves the metadata NULL, logs a warning, and renders. (The
    /// exif-samples `invalid/` files, XMP instead of EXIF, get their XMP date: `XMPMetadataTests`.)
    @Test func unreadableExifStillRenders() throws {
        let input = try Self.fileWithCorruptExif()
        defer { try? FileManager.default.removeItem(atPath: input) }
        try withFixture { f in
            let imported = try f.command.run("import", input)
            try #require(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stderr.contains("warning"), "a warning names the unreadable metadata: \(imported.stderr)")
            let id = try f.importedID(imported.stdout.split(separator: "\n")[0])
            let row = try f.connection.query(
                "SELECT latitude, creation_date, orientation FROM darkroom.assets WHERE id = $1", [.int(id)])[0]
            #expect(row["latitude"].isNull && row["creation_date"].isNull)
            #expect(try row["orientation"].decode(Int.self) == 1)
            _ = try f.enqueue(id, #"{"operations":[{"op":"sepia"}]}"#)
            let drained = try f.command.run("worker", "--drain")
            #expect(drained.status == 0, "\(drained.stderr)")
        }
    }

    @Test func importRefusesWhatIsNotAJPEGAndImportsTheRest() throws {
        try withFixture { f in
            let text = NSTemporaryDirectory() + "darkroom-\(UUID().uuidString).jpg"
            try Data("hello\n".utf8).write(to: URL(fileURLWithPath: text))
            defer { try? FileManager.default.removeItem(atPath: text) }
            let result = try f.command.run(
                "import", text, Fixtures.exifSample("gps/DSCN0021.jpg").path, "/nonexistent/photo.jpg")
            #expect(result.status == 1)
            #expect(result.stderr.contains(text) && result.stderr.contains("is not a photo darkroom reads"))
            #expect(!result.stderr.contains("0x68"), "the refusal shows nothing of the file's content")
            #expect(result.stderr.contains("/nonexistent/photo.jpg: no such file"))
            #expect(result.stdout.contains("imported"))
            #expect(try f.scalar("SELECT count(*)::text FROM darkroom.assets") == "1")
        }
    }

    @Test func commandsExitTwoWhenTheyCannotWork() throws {
        let command = DarkroomCommand(databaseURL: "postgresql://nobody@127.0.0.1:1/none", storage: "/nonexistent")
        let worker = try command.run("worker", "--drain")
        #expect(worker.status == 2)
        #expect(worker.stderr.contains("cannot connect to PostgreSQL"))
        try withFixture { f in
            let missingStorage = try f.command.run(
                ["worker", "--drain"], environment: ["DARKROOM_STORAGE": "/nonexistent/storage"])
            #expect(missingStorage.status == 2)
            #expect(missingStorage.stderr.contains("/nonexistent/storage"))
        }
    }

    @Test func sqlEnqueueRefusesBadInput() throws {
        try withFixture { f in
            #expect {
                _ = try f.connection.query(
                    "SELECT darkroom.enqueue_edit(999, 'io.darkroom.pipeline', '1.0.0', '{}'::jsonb)")
            } throws: { "\($0)".contains("999") }
            let id = try f.importedID(
                try f.command.run("import", Fixtures.exifSample("gps/DSCN0021.jpg").path).stdout.split(separator: "\n")[
                    0])
            #expect {
                _ = try f.connection.query(
                    "SELECT darkroom.enqueue_edit($1, 'pipeline', '1.0.0', '{}'::jsonb)", [.int(id)])
            } throws: { "\($0)".contains("pipeline") }
            #expect {
                _ = try f.connection.query(
                    "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', 'v1', '{}'::jsonb)", [.int(id)])
            } throws: { "\($0)".contains("v1") }
        }
    }
}
