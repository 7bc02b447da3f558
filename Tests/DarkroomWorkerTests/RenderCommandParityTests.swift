import DarkroomAdjustments
import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// `darkroom render` and a worker go through the same layer renderer: for a pipeline edit on a
/// flipped JPEG, an Apple Photos edit and a LUT filter, the command's output has the worker's
/// pixels exactly.
@Suite(.serialized) struct RenderCommandParityTests {
    /// Queues `data` on `original` through SQL, drains a worker, renders the same with the
    /// command, and returns both renders decoded.
    static func bothRenders(
        of original: String, identifier: String, version: String, data: [UInt8], commandFlags: [String],
        setUp: (DarkroomCommand) throws -> Void = { _ in }
    ) throws -> (worker: DecodedImage, command: DecodedImage) {
        try DarkroomCommand.withMigratedLibrary("parity") { command in
            let (url, storage) = (command.databaseURL, command.storage)
            try setUp(command)
            let imported = try command.run("import", original)
            try #require(imported.status == 0, "\(imported.stderr)")
            let asset = try #require(Int64(imported.stdout.split(separator: "\t")[0].dropFirst("asset ".count)))
            let connection = try DatabaseConnection(url)
            _ = try connection.query(
                "SELECT darkroom.enqueue_edit($1, $2, $3, $4::bytea)",
                [.int(asset), .text(identifier), .text(version), .bytes(data)])
            let drained = try command.run("worker", "--drain")
            try #require(drained.status == 0, "\(drained.stderr)")
            let path = try connection.query(
                """
                SELECT a.rendered_path FROM darkroom.assets s
                  JOIN darkroom.adjustments a ON a.id = s.current_adjustment_id WHERE s.id = $1
                """, [.int(asset)])
            let rendered = storage + "/" + (try #require(path.first)[0].decode(String.self))

            let output = storage + "/command.jpg"
            let result = try command.run(["render", original, "-o", output] + commandFlags)
            try #require(result.status == 0, "\(result.stderr)")
            return (try DecodedImage(path: rendered), try DecodedImage(path: output))
        }
    }

    @Test func aPipelineEditOnAFlippedJPEG() throws {
        // Stored 450×600, shown flipped and turned to 600×450 (EXIF orientation 7).
        let original = Fixtures.exifSample("orientation/landscape_7.jpg").path
        let data =
            #"{"operations":[{"op":"crop","x":10,"y":20,"width":300,"height":200},{"op":"sepia","intensity":0.5}]}"#
        let renders = try Self.bothRenders(
            of: original, identifier: "io.darkroom.pipeline", version: "1.0.0", data: Array(data.utf8),
            commandFlags: ["--data", data])
        #expect(renders.worker.width == 300 && renders.worker.height == 200)
        #expect(renders.worker == renders.command)
    }

    @Test func anApplePhotosEdit() throws {
        let folder = Fixtures.root.appendingPathComponent("apple")
        let sidecar = try AppleSidecar.decode(Fixtures.bytes(of: folder.appendingPathComponent("wedding.AAE")))
        let renders = try Self.bothRenders(
            of: folder.appendingPathComponent("wedding.jpg").path, identifier: sidecar.formatIdentifier,
            version: sidecar.formatVersion, data: sidecar.data,
            commandFlags: ["--aae", folder.appendingPathComponent("wedding.AAE").path])
        #expect(renders.worker == renders.command)
    }

    @Test func aLUTFilter() throws {
        let data = #"{"operations":[{"op":"filter","name":"dusk","version":"1.0.0"},{"op":"exposure","ev":0.3}]}"#
        let renders = try Self.bothRenders(
            of: Fixtures.exifSample("canon_hdr_NO.jpg").path, identifier: "io.darkroom.pipeline", version: "1.0.0",
            data: Array(data.utf8),
            commandFlags: ["--data", data, "--filter-file", "dusk@1.0.0=\(FilterJobTests.grayscale)"]
        ) { command in
            let added = try command.run("filter", "add", "dusk", "1.0.0", FilterJobTests.grayscale)
            try #require(added.status == 0, "\(added.stderr)")
        }
        #expect(renders.worker == renders.command)
    }
}
