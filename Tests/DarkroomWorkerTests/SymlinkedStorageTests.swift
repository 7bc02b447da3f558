import ByteStreams
import DarkroomDatabase
import DarkroomImport
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import LibPQ
import Logging
import Testing

/// Issue 31: a job whose renders folder is a symlink fails for good, under its own code, and
/// writes nothing where the link leads.
@Suite(.serialized) struct SymlinkedStorageTests {
    @Test func aJobWhoseRendersFolderIsASymlinkFailsPermanentlyAndWritesNothingOutside() throws {
        try TestDatabase.withFreshDatabase { url in
            let base = NSTemporaryDirectory() + "darkroom-worker-link-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: base) }
            let storage = try StorageRoot.create(base + "/storage")
            let outside = base + "/outside"
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            let connection = try PostgresConnection(url)
            _ = try Migrator.forTestDatabase(url).migrate(on: connection, logger: Logger(label: "migrate"))
            let asset = try Importer(storage: storage, connection: connection, logger: Logger(label: "import"))
                .importFile(Fixtures.exifSample("gps/DSCN0010.jpg").path).assetID
            try FileManager.default.createSymbolicLink(
                atPath: storage.path + "/renders/\(asset)", withDestinationPath: outside)
            let job = try connection.query(
                "SELECT darkroom.enqueue_edit($1, $2, $3, $4::bytea) AS id",
                [
                    .int(asset), .text("io.darkroom.pipeline"), .text("1.0.0"),
                    .bytes(Array(#"{"operations":[{"op":"sepia"}]}"#.utf8)),
                ])[0]["id"].decode(Int64.self)

            var logger = Logger(label: "symlinked-storage-test")
            logger.logLevel = .critical
            let summary = Worker(
                options: WorkerOptions(databaseURL: url, storage: storage, drain: true, workerName: "link-test"),
                logger: logger
            ).run()

            #expect(summary.failed == 1 && summary.succeeded == 0)
            let row = try connection.query(
                "SELECT state, last_error, attempts FROM darkroom.jobs WHERE id = $1", [.int(job)])[0]
            let error = try row["last_error"].decode(String.self)
            #expect(try row["state"].decode(String.self) == "failed")
            #expect(try row["attempts"].decode(Int.self) == 1, "a symlink is permanent: \(error)")
            #expect(error.hasPrefix("symlink_in_storage_path: renders/\(asset)/\(job)."), "\(error)")
            #expect(error.contains("cannot open the folder renders/\(asset): the path goes through a symbolic link"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside) == [])
        }
    }
}
