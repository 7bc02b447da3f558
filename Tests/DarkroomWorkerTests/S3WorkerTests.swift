import ByteStreams
import DarkroomDatabase
import DarkroomImport
import DarkroomObjectStore
import DarkroomOperatorScripts
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import JPEGTurbo
import LibPQ
import Logging
import Testing

/// A bucket as the worker sees it, which checks at every commit of a render that no
/// adjustment names it yet: the object must be complete before it is recorded.
struct RecordingOrderStorage: ObjectStorage {
    let base: S3Storage
    /// Publishes through this one instead (a bucket that refuses the credentials).
    var publisher: S3Storage?
    let databaseURL: String
    let violations: Violations

    final class Violations: @unchecked Sendable {
        private let lock = NSLock()
        private var found: [String] = []
        private var checked = 0
        func add(_ text: String) { lock.withLock { found.append(text) } }
        func count() { lock.withLock { checked += 1 } }
        var all: [String] { lock.withLock { found } }
        var commits: Int { lock.withLock { checked } }
    }

    final class CheckedUpload: ObjectUpload {
        let upload: any ObjectUpload
        let key: StorageKey
        let storage: RecordingOrderStorage
        init(_ upload: any ObjectUpload, key: StorageKey, storage: RecordingOrderStorage) {
            self.upload = upload
            self.key = key
            self.storage = storage
        }
        var objectName: String { upload.objectName }
        func write(_ bytes: UnsafeRawBufferPointer) throws(StreamError) { try upload.write(bytes) }
        func abort() { upload.abort() }
        func commit() throws(StreamError) -> Int {
            storage.check(key)
            return try upload.commit()
        }
    }

    func check(_ key: StorageKey) {
        violations.count()
        do {
            let connection = try DatabaseConnection(databaseURL)
            let recorded = try connection.query(
                "SELECT count(*)::int AS n FROM darkroom.adjustments WHERE rendered_path = $1",
                [.text(key.rawValue)])[0]["n"].decode(Int.self)
            if recorded != 0 { violations.add("\(key) was recorded before its object was complete") }
        } catch {
            violations.add("cannot check \(key): \(error)")
        }
    }

    var location: String { base.location }
    var isAvailable: Bool { base.isAvailable }
    var scratchDirectory: String { base.scratchDirectory }
    var bufferedBytesPerStream: Int { base.bufferedBytesPerStream }
    func openForReading(_ key: StorageKey) throws(StreamError) -> any ByteSource { try base.openForReading(key) }
    func beginPublishing(_ key: StorageKey) throws(StreamError) -> any ObjectUpload {
        CheckedUpload(try (publisher ?? base).beginPublishing(key), key: key, storage: self)
    }
    func exists(_ key: StorageKey) throws(StreamError) -> Bool { try base.exists(key) }
    func list(under prefix: String, modifiedBefore cutoff: Date) throws(StreamError) -> [StoredObject] {
        try base.list(under: prefix, modifiedBefore: cutoff)
    }
    func remove(_ name: String) throws(StreamError) { try base.remove(name) }
    func key(ofLocalFile path: String) -> StorageKey? { nil }
}

/// The worker's normal path with originals and renders in the real S3 server: import into the
/// bucket, render JPEG and HEIC originals from it, publish renders to it, and fail clearly
/// when the bucket refuses the credentials.
@Suite(.serialized) struct S3WorkerTests {
    func drain(_ url: String, storage: any ObjectStorage) -> WorkerSummary {
        var logger = Logger(label: "s3-test")
        logger.logLevel = .critical
        let options = WorkerOptions(
            databaseURL: url, storage: storage, drain: true, memoryBudget: 256 << 20, workerName: "s3-test")
        return Worker(options: options, logger: logger).run()
    }

    func enqueue(_ connection: DatabaseConnection, _ asset: Int64) throws -> Int64 {
        try connection.query(
            "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::jsonb) AS id",
            [.int(asset), .text(#"{"operations":[{"op":"sepia"},{"op":"vignette"}]}"#)])[0]["id"].decode(Int64.self)
    }

    func readAll(_ storage: any ObjectStorage, _ key: String) throws -> [UInt8] {
        let source = try storage.openForReading(try StorageKey(key))
        var whole: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if got == 0 { return whole }
            whole += buffer[..<got]
        }
    }

    @Test func jpegAndHeicOriginalsRenderFromTheBucketToTheBucket() throws {
        try withQueueDatabase { url, connection in
            let bucket = try TestObjectStore.storage()
            let importer = Importer(storage: bucket, connection: connection, logger: Logger(label: "import"))
            let jpeg = try importer.importFile(Fixtures.exifSample("canon_hdr_NO.jpg").path)
            let heic = try importer.importFile(HEIFFixtures.arrow.path)
            #expect(jpeg.status == .imported && heic.status == .imported)
            #expect(try bucket.exists(StorageKey(jpeg.storedPath)) && heic.storedPath.hasSuffix(".heic"))
            // Content-addressed: the same photo under another name is not copied again.
            let copy = NSTemporaryDirectory() + "darkroom-s3-copy-\(UUID().uuidString).jpg"
            try FileManager.default.copyItem(atPath: Fixtures.exifSample("canon_hdr_NO.jpg").path, toPath: copy)
            defer { try? FileManager.default.removeItem(atPath: copy) }
            let again = try importer.importFile(copy)
            #expect(again.status == .existing && again.assetID == jpeg.assetID && again.storedPath == jpeg.storedPath)

            let jobs = [try enqueue(connection, jpeg.assetID), try enqueue(connection, heic.assetID)]
            let watched = RecordingOrderStorage(base: bucket, databaseURL: url, violations: .init())
            let summary = drain(url, storage: watched)
            #expect(summary.succeeded == 2 && summary.failed == 0, "\(summary)")
            #expect(watched.violations.all.isEmpty, "\(watched.violations.all)")
            #expect(watched.violations.commits == 4, "two renders and two display copies")

            // The same jobs on a local root holding the same originals: the same bytes.
            let rootPath = NSTemporaryDirectory() + "darkroom-s3-local-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: rootPath) }
            let root = try StorageRoot.create(rootPath)
            for original in [jpeg.storedPath, heic.storedPath] {
                let bytes = try readAll(bucket, original)
                try root.publish(try StorageKey(original)) { upload in
                    try bytes.withUnsafeBytes { try upload.write($0) }
                }
            }
            let localJobs = [try enqueue(connection, jpeg.assetID), try enqueue(connection, heic.assetID)]
            #expect(drain(url, storage: root).succeeded == 2)
            for (job, localJob) in zip(jobs, localJobs) {
                let row = try connection.query(
                    """
                    SELECT a.rendered_path, a.rendered_bytes, a.rendered_width, a.rendered_height, j.state
                      FROM darkroom.adjustments a JOIN darkroom.jobs j ON j.id = a.job_id WHERE a.job_id = $1
                    """, [.int(job)])[0]
                let path = try row["rendered_path"].decode(String.self)
                let rendered = try readAll(bucket, path)
                let recordedBytes = try row["rendered_bytes"].decode(Int.self)
                #expect(rendered.count == recordedBytes && row["state"].string == "succeeded")
                let header = try JPEGDecoder(
                    source: ReplayingSource(prefix: rendered, then: FileSource(path: "/dev/null"))
                ).header
                let (width, height) = (
                    try row["rendered_width"].decode(Int.self), try row["rendered_height"].decode(Int.self)
                )
                #expect(header.width == width && header.height == height)
                let localPath = try connection.query(
                    "SELECT rendered_path FROM darkroom.adjustments WHERE job_id = $1",
                    [.int(localJob)])[0]["rendered_path"].decode(String.self)
                let local = try Data(contentsOf: URL(fileURLWithPath: try root.resolve(localPath)))
                #expect(Array(local) == rendered, "job \(job): the bucket's render equals the local one")
            }
            let left = try bucket.list(
                under: StorageLayout.rendersFolder, modifiedBefore: Date().addingTimeInterval(60))
            #expect(left.count == 4 && left.allSatisfy { !$0.isUnfinishedUpload }, "\(left)")
        }
    }

    @Test func aBucketThatRefusesTheCredentialsFailsTheJobForGood() throws {
        try withQueueDatabase { url, connection in
            let bucket = try TestObjectStore.storage()
            let asset = try Importer(storage: bucket, connection: connection, logger: Logger(label: "import"))
                .importFile(Fixtures.exifSample("canon_hdr_NO.jpg").path).assetID
            let refused = try TestObjectStore.storage(prefix: bucket.configuration.prefix, secret: "wrong-secret")

            // Writing refused: the render is not retried, nothing is visible, nothing recorded.
            let job = try enqueue(connection, asset)
            let writing = RecordingOrderStorage(base: bucket, publisher: refused, databaseURL: url, violations: .init())
            #expect(drain(url, storage: writing).failed == 1)
            let row = try connection.query("SELECT state, last_error FROM darkroom.jobs WHERE id = $1", [.int(job)])[0]
            let error = try row["last_error"].decode(String.self)
            #expect(row["state"].string == "failed", "a refused signature is permanent: \(error)")
            #expect(
                error.contains("SignatureDoesNotMatch")
                    && error.contains("s3://\(TestObjectStore.bucket)/\(bucket.configuration.prefix)/renders/"),
                "\(error)")
            #expect(
                try bucket.list(under: StorageLayout.rendersFolder, modifiedBefore: Date().addingTimeInterval(60))
                    .isEmpty)
            #expect(
                try connection.query("SELECT count(*)::int AS n FROM darkroom.adjustments")[0]["n"].decode(Int.self)
                    == 0)

            // Reading refused: permanent too, with its own code.
            let second = try enqueue(connection, asset)
            #expect(drain(url, storage: refused).failed == 1)
            let read = try connection.query(
                "SELECT state, errors->0->>'code' AS code, last_error FROM darkroom.jobs WHERE id = $1",
                [.int(second)])[0]
            #expect(
                read["state"].string == "failed" && read["code"].string == "storage_rejected",
                "\(read["last_error"].string ?? "")")

            // An original gone from the bucket: the job fails clearly, naming it.
            let original = try connection.query(
                "SELECT original_path FROM darkroom.assets WHERE id = $1", [.int(asset)])[0]["original_path"]
                .decode(String.self)
            try bucket.remove(original)
            let third = try enqueue(connection, asset)
            #expect(drain(url, storage: bucket).failed == 1)
            let missing = try connection.query(
                "SELECT state, errors->0->>'code' AS code, last_error FROM darkroom.jobs WHERE id = $1",
                [.int(third)])[0]
            #expect(missing["state"].string == "failed" && missing["code"].string == "original_missing")
            #expect(missing["last_error"].string?.contains(original) == true)
        }
    }

    /// `darkroom job run clean-orphaned-renders` on a bucket: a failed job's render goes, an
    /// upload a killed worker left is aborted, recorded and queued jobs' objects stay.
    @Test func theOrphanCleanupWorksOnABucketAndAbortsLeftUploads() throws {
        try TestDatabase.withFreshDatabase { url in
            let bucket = try TestObjectStore.storage()
            let jobs = try OrphanCleanupTests.jobs(in: url)
            let (asset, succeeded, failed, queued, recorded) = (
                jobs.asset, jobs.succeeded, jobs.failed, jobs.queued, jobs.recorded
            )

            for key in [
                recorded, StorageLayout.render(assetID: asset, jobID: failed),
                StorageLayout.render(assetID: asset, jobID: queued),
            ] {
                try bucket.publish(key) { try [UInt8]([1]).withUnsafeBytes($0.write) }
            }
            // A worker killed mid-upload of an earlier attempt: parts up, never completed.
            let left = try bucket.beginPublishing(StorageLayout.display(assetID: asset, jobID: succeeded))
            try [UInt8](repeating: 7, count: S3Storage.minimumPartSize + 1).withUnsafeBytes { try left.write($0) }
            // S3 times have whole seconds: the cleanup takes only what the bucket lists as older than its "now".
            try waitUntil("the bucket lists the files and the left upload as older than now", timeout: .seconds(10)) {
                let listed = try bucket.list(under: StorageLayout.rendersFolder, modifiedBefore: Date()).map(\.name)
                return listed.contains(StorageLayout.render(assetID: asset, jobID: failed).rawValue)
                    && listed.contains {
                        $0.hasPrefix(StorageLayout.display(assetID: asset, jobID: succeeded).rawValue + "#upload=")
                    }
            }

            let report = try jobs.runCleanup(minAgeMinutes: 0, files: StoredRenderFiles(storage: bucket))
            #expect(report.deletedFiles.count == 2, "\(report.deletedFiles)")
            #expect(report.deletedFiles.contains(StorageLayout.render(assetID: asset, jobID: failed).rawValue))
            #expect(
                report.deletedFiles.contains {
                    $0.hasPrefix(StorageLayout.display(assetID: asset, jobID: succeeded).rawValue + "#upload=")
                })
            let remaining = try bucket.list(
                under: StorageLayout.rendersFolder, modifiedBefore: Date().addingTimeInterval(60))
            #expect(
                remaining.map(\.name)
                    == [recorded.rawValue, StorageLayout.render(assetID: asset, jobID: queued).rawValue].sorted(),
                "\(remaining)")
            withExtendedLifetime(left) {}
        }
    }

    /// A render larger than a part goes up as a multipart upload, and an original whose
    /// connection drops mid-decode is resumed under libjpeg: the job succeeds, once.
    @Test func aLargeRenderGoesUpInPartsWhileItsOriginalResumesAfterADrop() throws {
        try withQueueDatabase { url, connection in
            let bucket = try TestObjectStore.storage()
            // Fine noise: JPEG cannot make it small, so the render is well over 5 MiB.
            let (width, height) = (3000, 2000)
            var pool = [UInt8](repeating: 0, count: 1 << 20)
            var generator = SystemRandomNumberGenerator()
            pool.withUnsafeMutableBytes { bytes in
                for index in stride(from: 0, to: bytes.count, by: 8) {
                    bytes.storeBytes(of: generator.next() as UInt64, toByteOffset: index, as: UInt64.self)
                }
            }
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            for row in 0..<height {
                let start = (row * 7919) % (pool.count - width * 3)
                pixels.replaceSubrange(row * width * 3..<(row + 1) * width * 3, with: pool[start..<start + width * 3])
            }
            let input = NSTemporaryDirectory() + "darkroom-s3-noise-\(UUID().uuidString).jpg"
            defer { try? FileManager.default.removeItem(atPath: input) }
            try DecodedImage(width: width, height: height, pixels: pixels).write(to: input, quality: 95)
            let asset = try Importer(storage: bucket, connection: connection, logger: Logger(label: "import"))
                .importFile(input).assetID
            let job = try connection.query(
                "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::jsonb) AS id",
                [.int(asset), .text(#"{"operations":[{"op":"exposure","ev":0.3}]}"#)])[0]["id"].decode(Int64.self)

            let port = try #require(URL(string: try TestObjectStore.server().endpoint)?.port)
            let proxy = try CuttingProxy(targetPort: UInt16(port), cutAfter: 3 << 20, cuts: 1)
            defer { proxy.stop() }
            let proxied = try TestObjectStore.storage(prefix: bucket.configuration.prefix, endpoint: proxy.endpoint)
            let watched = RecordingOrderStorage(base: proxied, databaseURL: url, violations: .init())
            let summary = drain(url, storage: watched)
            #expect(summary.succeeded == 1 && summary.retried == 0, "\(summary)")
            #expect(proxy.cutsMade == 1, "the original's transfer was cut once and resumed")
            #expect(watched.violations.all.isEmpty, "\(watched.violations.all)")
            let row = try connection.query(
                "SELECT rendered_path, rendered_bytes FROM darkroom.adjustments WHERE job_id = $1", [.int(job)])[0]
            let bytes = try row["rendered_bytes"].decode(Int.self)
            #expect(bytes > S3Storage.minimumPartSize, "\(bytes) bytes: a multipart upload")
            #expect(try readAll(bucket, try row["rendered_path"].decode(String.self)).count == bytes)
            let left = try bucket.list(
                under: StorageLayout.rendersFolder, modifiedBefore: Date().addingTimeInterval(60))
            #expect(left.count == 2 && left.allSatisfy { !$0.isUnfinishedUpload }, "\(left)")
        }
    }

    /// An original already in the bucket is registered where it is, without a copy.
}
