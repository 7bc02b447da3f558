import ByteStreams
import DarkroomDatabase
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import LibPQ
import Logging
import Testing

@testable import DarkroomImport

/// Issue 31: an import never writes an original through a symlink planted in the storage.
@Suite struct ImportConfinementTests {
    @Test func anOriginalIsNotStoredThroughASymlinkedFolder() throws {
        try TestDatabase.withFreshDatabase { url in
            let base = NSTemporaryDirectory() + "darkroom-import-link-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: base) }
            let storage = try StorageRoot.create(base + "/storage")
            let outside = base + "/outside"
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            let connection = try DatabaseConnection(url)
            _ = try Migrator.forTestDatabase(url).migrate(on: connection, logger: Logger(label: "migrate"))
            let source = Fixtures.exifSample("gps/DSCN0010.jpg").path
            // The folder the original's key goes in (originals/<first two hex digits>) is a link out.
            let digest = try FileDigest(reading: source).sha256
            try FileManager.default.createSymbolicLink(
                atPath: storage.path + "/originals/" + digest.prefix(2), withDestinationPath: outside)

            let importer = Importer(storage: storage, connection: connection, logger: Logger(label: "import"))
            #expect {
                _ = try importer.importFile(source)
            } throws: { error in
                guard let error = error as? ImportError, let cause = error.cause as? StreamError else { return false }
                return error.code == .storageFailed && cause.code == .symlinkInPath
                    && cause.object == StorageLayout.original(sha256: digest).rawValue
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside) == [])
            #expect(try connection.query("SELECT count(*) AS n FROM darkroom.assets")[0]["n"].decode(Int64.self) == 0)
        }
    }
}
