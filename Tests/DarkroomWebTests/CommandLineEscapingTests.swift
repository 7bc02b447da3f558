import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// What darkroom prints of text from outside (a file's name, a job's error, a worker's host)
/// cannot start a line of its own or drive the terminal.
@Suite struct CommandLineEscapingTests {
    @Test func namesAndErrorsPrintAsOneLineWithoutEscapeSequences() async throws {
        try await TestDatabase.withFreshDatabase { url in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "darkroom-escaping-\(UUID().uuidString)"
            ).path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try FileManager.default.createDirectory(atPath: folder + "/storage", withIntermediateDirectories: true)
            let darkroom = DarkroomCommand(databaseURL: url, storage: folder + "/storage")
            try #require(try darkroom.run("migrate").status == 0)
            // A photo whose name forges a second line of import's output and colours the terminal.
            let hostile = folder + "/IMG\nasset 99\timported\toriginals-forged.jpg\u{1B}[31m.jpg"
            try FileManager.default.copyItem(atPath: Fixtures.exifSample("Canon_40D.jpg").path, toPath: hostile)
            let imported = try darkroom.run("import", hostile)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.split(separator: "\n").count == 1, "\(imported.stdout)")
            #expect(imported.stdout.contains("IMG\\nasset 99\\timported") && !imported.stdout.contains("\u{1B}"))
            let notAPhoto = folder + "/notes\n\u{1B}]0;owned\u{7}.txt"
            try "not a photo".write(toFile: notAPhoto, atomically: true, encoding: .utf8)
            let refused = try darkroom.run("import", notAPhoto)
            #expect(refused.status == 1)
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(!refused.stderr.contains("\u{1B}") && !refused.stderr.contains("\u{7}"))

            // A failure whose recorded error and a worker whose host carry the same.
            let connection = try DatabaseConnection(url)
            let asset = try connection.query("SELECT min(id) AS id FROM darkroom.assets")[0]["id"].decode(Int64.self)
            let job = try JobQueue(connection, logger: .quiet).enqueue(
                assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
                data: Array(#"{"operations":[]}"#.utf8))
            _ = try connection.query(
                "UPDATE darkroom.jobs SET state = 'failed', attempts = 1, finished_at = now(), last_error = $1 WHERE id = $2",
                [.text("decode failed\njob 1 asset 1 after 1 attempt(s): \u{1B}[2Jall good"), .int(job)])
            let status = try darkroom.run("status")
            #expect(status.status == 0, "\(status.stderr)")
            #expect(!status.stdout.contains("\u{1B}"), "\(status.stdout)")
            #expect(status.stdout.contains("decode failed\\njob 1 asset 1"), "\(status.stdout)")
        }
    }
}
