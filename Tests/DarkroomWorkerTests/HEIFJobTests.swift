import ByteStreams
import DarkroomDatabase
import DarkroomImport
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import JPEGTurbo
import LibHeif
import LibPQ
import Logging
import Testing

/// HEIC and AVIF originals through import, the queue and a worker, against a real PostgreSQL.
@Suite(.serialized) struct HEIFJobTests {
    struct Fixture {
        let url: String
        let root: String
        let storage: StorageRoot
        let connection: DatabaseConnection

        var importer: Importer { Importer(storage: storage, connection: connection, logger: Logger(label: "import")) }

        /// Writes `bytes` to a file named `name` and imports it.
        func importBytes(_ bytes: [UInt8], name: String) throws -> ImportOutcome {
            try HEIFFixtures.write(bytes, to: root + "/" + name)
            return try importer.importFile(root + "/" + name)
        }

        func asset(_ id: Int64) throws -> Asset { try #require(try AssetStore(connection).asset(id: id)) }

        func enqueue(_ asset: Int64) throws -> Int64 {
            try connection.query(
                "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::jsonb) AS id",
                [.int(asset), .text(#"{"operations":[{"op":"sepia","intensity":0.5}]}"#)])[0]["id"].decode(Int64.self)
        }

        func drain() -> WorkerSummary {
            var logger = Logger(label: "heif-job-test")
            logger.logLevel = .critical
            return Worker(
                options: WorkerOptions(databaseURL: url, storage: storage, drain: true, workerName: "heif-test"),
                logger: logger
            ).run()
        }

        func job(_ id: Int64) throws -> (state: String, error: String?, attempts: Int) {
            let row = try connection.query(
                "SELECT state, last_error, attempts FROM darkroom.jobs WHERE id = $1", [.int(id)])[0]
            return (
                try row["state"].decode(String.self), row["last_error"].string, try row["attempts"].decode(Int.self)
            )
        }

        /// Rewrites a stored original in place, as a failing disk or a bad copy would.
        func damage(_ key: String, _ edit: ([UInt8]) -> [UInt8]) throws {
            let path = try storage.resolve(key)
            try HEIFFixtures.write(edit(try Fixtures.bytes(of: URL(fileURLWithPath: path))), to: path)
        }

        func renders(of asset: Int64) -> [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: root + "/storage/renders/\(asset)")) ?? []
        }
    }

    func withFixture(_ body: (Fixture) throws -> Void) throws {
        try TestDatabase.withFreshDatabase { url in
            let root = NSTemporaryDirectory() + "darkroom-heif-jobs-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: root) }
            let storage = try StorageRoot.create(root + "/storage")
            let connection = try DatabaseConnection(url)
            _ = try Migrator().migrate(on: connection, logger: Logger(label: "migrate"))
            try body(Fixture(url: url, root: root, storage: storage, connection: connection))
        }
    }

    static func heic(_ encoding: HEIFEncoding, width: Int = 96, height: Int = 64) throws -> [UInt8] {
        try HEIFEncoder.encode(
            rgb: HEIFFixtures.quadrants(width: width, height: height), width: width, height: height, encoding: encoding)
    }

    /// Recorded exactly as for a JPEG: GPS with its signs, the date with its offset; the size
    /// displayed; orientation 1, because the decoder applies `irot`/`imir` itself.
    @Test func importRecordsTheMetadataOfAHEIC() throws {
        try withFixture { f in
            let exif = HEIFFixtures.exif(
                orientation: 6, bigEndian: false, gps: true, date: "2024:05:06 07:08:09", offset: "+10:00")
            // Named like a JPEG: the content decides, and the stored copy is named for it.
            let outcome = try f.importBytes(
                try Self.heic(HEIFEncoding.input(orientation: 6, exif: exif)), name: "IMG_0001.jpg")
            #expect(outcome.status == .imported && outcome.warnings.isEmpty)
            #expect(outcome.storedPath.hasPrefix("originals/") && outcome.storedPath.hasSuffix(".heic"))
            let asset = try f.asset(outcome.assetID)
            #expect(
                asset.pixelWidth == 64 && asset.pixelHeight == 96,
                "the displayed size: \(asset.pixelWidth)×\(asset.pixelHeight)")
            #expect(asset.orientation == 1)
            let south: Double = -(33 + 51.0 / 60 + 54.36 / 3600)
            let east: Double = 151 + 12.0 / 60 + 40.2 / 3600
            let latitude = try #require(asset.latitude)
            let longitude = try #require(asset.longitude)
            #expect(abs(latitude - south) < 1e-9 && abs(longitude - east) < 1e-9)
            #expect(asset.altitude == -12.5)
            // 07:08:09 at +10:00 is 21:08:09 UTC the day before.
            #expect(asset.creationDate == Date(timeIntervalSince1970: 1_714_943_289))
        }
    }

    @Test func missingTagsStayEmptyAndAnAVIFIsAnAVIF() throws {
        try withFixture { f in
            let bare = try f.importBytes(
                try Self.heic(HEIFEncoding.input(codec: .av1, exif: HEIFFixtures.exif(orientation: 1))), name: "a.avif")
            #expect(bare.storedPath.hasSuffix(".avif"))
            let asset = try f.asset(bare.assetID)
            #expect(
                asset.latitude == nil && asset.longitude == nil && asset.altitude == nil && asset.creationDate == nil)
            let none = try f.importBytes(try Self.heic(HEIFEncoding.input()), name: "no-exif.heic")
            #expect(try f.asset(none.assetID).orientation == 1 && none.warnings.isEmpty)
        }
    }

    @Test func importRefusesDamagedHEIFsNamingTheFile() throws {
        try withFixture { f in
            let whole = try Self.heic(HEIFEncoding.input())
            for (name, bytes) in [
                ("cut.heic", Array(whole.dropLast(8))),
                ("huge.heic", ISOBMFFEdit.settingImageSize(whole, width: 100_000, height: 100_000)),
            ] {
                #expect {
                    _ = try f.importBytes(bytes, name: name)
                } throws: { error in
                    (error as? ImportError).map { $0.description.hasPrefix(f.root + "/" + name + ": ") } ?? false
                }
            }
            #expect(try f.connection.query("SELECT count(*) FROM darkroom.assets")[0][0].decode(Int64.self) == 0)
            #expect((try? FileManager.default.contentsOfDirectory(atPath: f.root + "/storage/originals")) ?? [] == [])
        }
    }

    /// The phone photo through a worker: upright, its Display P3 profile carried.
    @Test func aWorkerRendersThePhonePhotoUpright() throws {
        try withFixture { f in
            let outcome = try f.importer.importFile(HEIFFixtures.arrow.path)
            let asset = try f.asset(outcome.assetID)
            #expect(asset.pixelWidth == 3024 && asset.pixelHeight == 4032 && asset.orientation == 1)
            let job = try f.enqueue(outcome.assetID)
            #expect(f.drain().succeeded == 1)
            let row = try f.connection.query(
                "SELECT rendered_path, rendered_width, rendered_height FROM darkroom.adjustments WHERE job_id = $1",
                [.int(job)])[0]
            #expect(
                try row["rendered_width"].decode(Int.self) == 3024 && row["rendered_height"].decode(Int.self) == 4032)
            let header = try JPEGDecoder(
                source: FileSource(path: try f.storage.resolve(try row["rendered_path"].decode(String.self)))
            ).header
            #expect(HEIFFixtures.describesDisplayP3(try #require(header.iccProfile)))
        }
    }

    /// Originals damaged after import: each job fails at once with a typed code naming the
    /// original, writes nothing, and the worker goes on to the next job.
    @Test func damagedOriginalsFailTheirJobsAndTheWorkerGoesOn() throws {
        try withFixture { f in
            // Distinct photos (the EXIF differs), so each is its own asset.
            let small = { (n: Int) in try Self.heic(HEIFEncoding.input(exif: HEIFFixtures.exif(orientation: n))) }
            var cases: [(job: Int64, asset: Int64, key: String, code: String)] = []
            let edits: [(String, String, [UInt8], ([UInt8]) -> [UInt8])] = [
                ("truncated.heic", "heif_damaged", try small(1), { Array($0.dropLast(8)) }),
                (
                    "no-image.heic", "heif_corrupt", try small(2),
                    { ISOBMFFEdit.settingPrimaryItem($0, to: ISOBMFFEdit.itemID(ofType: "Exif", in: $0)!) }
                ),
                (
                    "huge.heic", "heif_too_large", try small(3),
                    { ISOBMFFEdit.settingImageSize($0, width: 100_000, height: 100_000) }
                ),
                (
                    "tiles.heic", "heif_damaged", try Fixtures.bytes(of: HEIFFixtures.arrow),
                    ISOBMFFEdit.pointingLastExtentOutside
                ),
            ]
            for (name, code, bytes, edit) in edits {
                let outcome = try f.importBytes(bytes, name: name)
                try f.damage(outcome.storedPath, edit)
                cases.append((try f.enqueue(outcome.assetID), outcome.assetID, outcome.storedPath, code))
            }
            let good = try f.importBytes(try Self.heic(HEIFEncoding.input()), name: "good.heic")
            let goodJob = try f.enqueue(good.assetID)
            let summary = f.drain()
            #expect(summary.failed == cases.count && summary.succeeded == 1, "\(summary)")
            for entry in cases {
                let outcome = try f.job(entry.job)
                #expect(outcome.state == "failed" && outcome.attempts == 1, "damage is permanent: \(outcome)")
                let error = try #require(outcome.error)
                #expect(
                    error.hasPrefix("\(entry.code): \(entry.key): the original of asset \(entry.asset) "), "\(error)")
                #expect(f.renders(of: entry.asset).isEmpty, "nothing written for \(entry.key)")
            }
            #expect(try f.job(goodJob).state == "succeeded")
        }
    }
}
