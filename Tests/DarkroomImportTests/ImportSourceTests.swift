import DarkroomDatabase
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import LibPQ
import Logging
import Testing

@testable import DarkroomImport

#if canImport(Glibc)
    import Glibc
#endif

/// What import will read: regular files only, symlinks only within their folder, and nothing
/// that holds it (a FIFO with no writer, a device that never ends).
@Suite struct ImportSourceTests {
    @Test func onlyRegularFilesWithinTheirFolderAreRead() async throws {
        try await TestDatabase.withFreshDatabase { url in
            let base = NSTemporaryDirectory() + "darkroom-sources-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: base) }
            let folder = base + "/incoming"
            let outside = base + "/elsewhere"
            for path in [folder, outside] {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            }
            let storage = try StorageRoot.create(base + "/storage")
            let connection = try DatabaseConnection(url)
            _ = try Migrator.forTestDatabase(url).migrate(on: connection, logger: Logger(label: "migrate"))
            func importer(follows: Bool = false) -> Importer {
                Importer(
                    storage: storage, connection: connection, logger: Logger(label: "import"), followsSymlinks: follows)
            }
            let photo = Fixtures.exifSample("Canon_40D.jpg").path
            try FileManager.default.copyItem(atPath: photo, toPath: outside + "/secret.jpg")
            try FileManager.default.copyItem(atPath: photo, toPath: folder + "/inside.jpg")

            // A FIFO with no writer: refused at once, not waited on.
            #expect(mkfifo(folder + "/pipe.jpg", 0o600) == 0)
            let started = Date()
            let fifo = try #require(throws: ImportError.self) { try importer().importFile(folder + "/pipe.jpg") }
            #expect(fifo.code == .notARegularFile && Date().timeIntervalSince(started) < 5, "\(fifo)")
            // A symlink to a device that never ends.
            try FileManager.default.createSymbolicLink(atPath: folder + "/zero.jpg", withDestinationPath: "/dev/zero")
            let zero = try #require(throws: ImportError.self) {
                try importer(follows: true).importFile(folder + "/zero.jpg")
            }
            #expect(zero.code == .notARegularFile, "\(zero)")
            // A symlink out of its folder: refused unless the operator allows it.
            try FileManager.default.createSymbolicLink(
                atPath: folder + "/escape.jpg", withDestinationPath: "../elsewhere/secret.jpg")
            let escape = try #require(throws: ImportError.self) { try importer().importFile(folder + "/escape.jpg") }
            #expect(escape.code == .notARegularFile && escape.message.contains("--follow-symlinks"), "\(escape)")
            #expect(try importer(follows: true).importFile(folder + "/escape.jpg").status == .imported)
            // One within it is read, as is the file it names.
            try FileManager.default.createSymbolicLink(atPath: folder + "/alias.jpg", withDestinationPath: "inside.jpg")
            #expect(try importer().importFile(folder + "/alias.jpg").status == .existing, "the same photo by content")
            let dangling = folder + "/gone.jpg"
            try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "nothing-here.jpg")
            #expect(throws: ImportError.self) { try importer().importFile(dangling) }
            #expect(
                try connection.query("SELECT count(*) AS n FROM darkroom.assets")[0]["n"].decode(Int64.self) == 1)

            // A FIFO named as Apple's sidecar beside a photo: the photo is imported, the sidecar
            // refused at once rather than waited on.
            let export = base + "/export"
            try FileManager.default.createDirectory(atPath: export, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: Fixtures.exifSample("gps/DSCN0010.jpg").path, toPath: export + "/IMG_0001.JPG")
            #expect(mkfifo(export + "/IMG_0001.AAE", 0o600) == 0)
            let besideFIFO = Date()
            let withFIFO = try importer().importFile(export + "/IMG_0001.JPG")
            #expect(withFIFO.status == .imported && Date().timeIntervalSince(besideFIFO) < 5)
            #expect(withFIFO.sidecarRefusal?.code == .notARegularFile, "\(String(describing: withFIFO.sidecarRefusal))")
        }
    }
}
