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

/// Issue 31: a job that meets a symlink under the storage root, where it writes or where it
/// reads, fails for good under its own code, and writes nothing where the link leads.
@Suite(.serialized) struct SymlinkedStorageTests {
    struct Fixture {
        let url: String
        let storage: StorageRoot
        let connection: DatabaseConnection
        let asset: Int64
        let outside: String

        /// Queues a sepia edit of the asset, drains the queue, and returns the job's
        /// (state, last_error, attempts).
        func runEdit() throws -> (summary: WorkerSummary, job: Int64, state: String, error: String, attempts: Int) {
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
            let row = try connection.query(
                "SELECT state, last_error, attempts FROM darkroom.jobs WHERE id = $1", [.int(job)])[0]
            return (
                summary, job, try row["state"].decode(String.self), try row["last_error"].decode(String.self),
                try row["attempts"].decode(Int.self)
            )
        }

        var outsideEntries: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: outside)) ?? []).sorted()
        }
    }

    func withFixture(_ body: (Fixture) throws -> Void) throws {
        try TestDatabase.withFreshDatabase { url in
            let base = NSTemporaryDirectory() + "darkroom-worker-link-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: base) }
            let storage = try StorageRoot.create(base + "/storage")
            try FileManager.default.createDirectory(atPath: base + "/outside", withIntermediateDirectories: true)
            let connection = try DatabaseConnection(url)
            _ = try Migrator.forTestDatabase(url).migrate(on: connection, logger: Logger(label: "migrate"))
            let asset = try Importer(storage: storage, connection: connection, logger: Logger(label: "import"))
                .importFile(Fixtures.exifSample("gps/DSCN0010.jpg").path).assetID
            try body(
                Fixture(url: url, storage: storage, connection: connection, asset: asset, outside: base + "/outside"))
        }
    }

    @Test func aJobWhoseRendersFolderIsASymlinkFailsPermanentlyAndWritesNothingOutside() throws {
        try withFixture { f in
            try FileManager.default.createSymbolicLink(
                atPath: f.storage.path + "/renders/\(f.asset)", withDestinationPath: f.outside)
            let run = try f.runEdit()
            #expect(run.summary.failed == 1 && run.summary.succeeded == 0)
            #expect(run.state == "failed" && run.attempts == 1, "a symlink is permanent: \(run.error)")
            #expect(run.error.hasPrefix("symlink_in_storage_path: renders/\(f.asset)/\(run.job)."), "\(run.error)")
            #expect(
                run.error.contains("cannot open the folder renders/\(f.asset): the path goes through a symbolic link"))
            #expect(f.outsideEntries == [])
        }
    }

    /// The original swapped for a symlink to a copy outside: refused, not rendered.
    @Test func aJobWhoseOriginalIsASymlinkFailsPermanently() throws {
        try withFixture { f in
            let key = try f.connection.query(
                "SELECT original_path FROM darkroom.assets WHERE id = $1", [.int(f.asset)])[0][0].decode(String.self)
            let original = try f.storage.resolve(key)
            try FileManager.default.moveItem(atPath: original, toPath: f.outside + "/photo.jpg")
            try FileManager.default.createSymbolicLink(atPath: original, withDestinationPath: f.outside + "/photo.jpg")
            let run = try f.runEdit()
            #expect(run.state == "failed" && run.attempts == 1, "a symlink is permanent: \(run.error)")
            #expect(
                run.error.hasPrefix("symlink_in_storage_path: \(key): cannot read the original of asset \(f.asset)"),
                "\(run.error)")
            #expect(f.outsideEntries == ["photo.jpg"])
            let renders = (try? FileManager.default.contentsOfDirectory(atPath: f.storage.path + "/renders/\(f.asset)"))
            #expect((renders ?? []).isEmpty)
        }
    }
}
