import ByteStreams
import DarkroomDatabase
import DarkroomImport
import DarkroomOperatorScripts
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import LibPQ
import Logging
import Testing

/// A backend that is not the local filesystem as far as darkroom can tell: every object
/// streams in tiny chunks, as an HTTP body arrives, reads can break off part way, and it
/// says it holds a buffer per stream. Objects still end up under a `StorageRoot`.
struct ChunkingStorage: ObjectStorage {
    let base: StorageRoot
    var failReadsAfter: Int?

    var location: String { "chunks+file://" + base.path }
    var isAvailable: Bool { base.isAvailable }
    var scratchDirectory: String { base.scratchDirectory }
    var bufferedBytesPerStream: Int { 256 << 10 }

    func openForReading(_ key: StorageKey) throws(StreamError) -> any ByteSource {
        let file = try base.openForReading(key)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer { buffer.deallocate() }
        var whole: [UInt8] = []
        while true {
            let got = try file.read(into: buffer)
            if got == 0 { break }
            whole += buffer[..<got]
        }
        return ChunkedSource(
            whole, name: key.rawValue, maxChunk: 13, seed: UInt64(whole.count), failAfter: failReadsAfter)
    }

    func beginPublishing(_ key: StorageKey) throws(StreamError) -> any ObjectUpload { try base.beginPublishing(key) }
    func exists(_ key: StorageKey) throws(StreamError) -> Bool { try base.exists(key) }
    func list(under prefix: String, modifiedBefore cutoff: Date) throws(StreamError) -> [StoredObject] {
        try base.list(under: prefix, modifiedBefore: cutoff)
    }
    func remove(_ name: String) throws(StreamError) { try base.remove(name) }
    func key(ofLocalFile path: String) -> StorageKey? { nil }
}

/// The worker through another backend: the same bytes as through the local root, and a read
/// that breaks off fails the job (to be retried) with nothing published.
@Suite(.serialized) struct StorageSeamWorkerTests {
    func drain(_ url: String, storage: any ObjectStorage) -> WorkerSummary {
        var logger = Logger(label: "seam-test")
        logger.logLevel = .critical
        let options = WorkerOptions(
            databaseURL: url, storage: storage, drain: true, memoryBudget: 64 << 20,
            workerName: "seam-test")
        return Worker(options: options, logger: logger).run()
    }

    func withImportedPhoto(_ body: (String, StorageRoot, DatabaseConnection, Int64) throws -> Void) throws {
        try TestDatabase.withFreshDatabase { url in
            let root = NSTemporaryDirectory() + "darkroom-seam-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: root) }
            let storage = try StorageRoot.create(root)
            let connection = try DatabaseConnection(url)
            _ = try Migrator.forTestDatabase(url).migrate(on: connection, logger: Logger(label: "migrate"))
            let importer = Importer(storage: storage, connection: connection, logger: Logger(label: "import"))
            let asset = try importer.importFile(Fixtures.exifSample("canon_hdr_NO.jpg").path).assetID
            try body(url, storage, connection, asset)
        }
    }

    func enqueue(_ connection: DatabaseConnection, _ asset: Int64) throws -> Int64 {
        try connection.query(
            "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::jsonb) AS id",
            [.int(asset), .text(#"{"operations":[{"op":"sepia"},{"op":"vignette"}]}"#)])[0]["id"].decode(Int64.self)
    }

    func renderFiles(_ storage: StorageRoot) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: storage.path + "/renders").filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: storage.path + "/renders/" + $0, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }.sorted()
    }

    @Test func anotherBackendRendersTheSameBytes() throws {
        try withImportedPhoto { url, storage, connection, asset in
            let local = try enqueue(connection, asset)
            #expect(drain(url, storage: storage).succeeded == 1)
            let chunked = try enqueue(connection, asset)
            #expect(drain(url, storage: ChunkingStorage(base: storage)).succeeded == 1)
            for key in [StorageLayout.render, StorageLayout.display] {
                let a = try Data(contentsOf: URL(fileURLWithPath: try storage.resolve(key(asset, local))))
                let b = try Data(contentsOf: URL(fileURLWithPath: try storage.resolve(key(asset, chunked))))
                #expect(a == b && !a.isEmpty)
            }
        }
    }

    @Test func aReadThatBreaksOffFailsTheAttemptAndPublishesNothing() throws {
        try withImportedPhoto { url, storage, connection, asset in
            let job = try enqueue(connection, asset)
            let summary = drain(url, storage: ChunkingStorage(base: storage, failReadsAfter: 40_000))
            #expect(summary.retried == 1 && summary.succeeded == 0, "\(summary)")
            let row = try connection.query(
                "SELECT state, last_error, errors->0->>'code' AS code FROM darkroom.jobs WHERE id = $1",
                [.int(job)])[0]
            let original = try connection.query(
                "SELECT original_path FROM darkroom.assets WHERE id = $1", [.int(asset)])[0]["original_path"]
                .decode(String.self)
            let error = try row["last_error"].decode(String.self)
            #expect(row["state"].string == "queued", "an I/O error is retried")
            #expect(row["code"].string == "jpeg_io")
            #expect(error.contains(original + ": the original of asset \(asset) could not be read"), "\(error)")
            #expect(
                error.contains("connection reset by peer") && error.contains("at byte 40000")
                    && !error.contains("re-import"), "\(error)")
            let left = try renderFiles(storage)
            #expect(left.isEmpty, "no render, display copy or temporary: \(left)")
        }
    }
}
