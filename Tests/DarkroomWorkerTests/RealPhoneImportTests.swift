import DarkroomDatabase
import DarkroomImport
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import LibPQ
import Logging
import Testing

/// Real phone and camera photos (Tests/Fixtures/corpus): each imports with the metadata an
/// independent reader (exiftool 12.57) gives, at its displayed size with orientation 1 (its
/// `irot` is applied by every render, its EXIF orientation never), and renders through a worker
/// at 64 MiB, turned once. (The 24 MP and 200 MP grids render at 64 MiB in `CorpusTests` too; a
/// debug build takes minutes for 200 MP with an edit and a display copy, so the worker renders
/// the others.)
extension HEIFJobTests {
    struct RealPhoto: Sendable, CustomTestStringConvertible {
        var file: String
        var width: Int
        var height: Int
        /// Seconds since 1970 of DateTimeOriginal with OffsetTimeOriginal.
        var taken: TimeInterval
        var location: (latitude: Double, longitude: Double, altitude: Double)?
        var rendersThroughAWorker = true
        var testDescription: String { file }
    }

    static let realPhotos = [
        // iPhone 15 Pro, 24 MP, 9×5 tiles of 640×896, HDR gain map, depth, no irot.
        RealPhoto(
            file: "osxphotos/IMG_4076.HEIC", width: 5712, height: 4284, taken: 1_752_281_938,
            location: (36.121_033_333_333_3, -81.719_955_555_555_6, 1120.574_013)),
        // iPhone 15 Pro, irot 270 with EXIF Orientation 6: upright it stands 4284×5712.
        RealPhoto(
            file: "osxphotos/IMG_3582.HEIC", width: 4284, height: 5712, taken: 1_748_269_626,
            location: (34.664_772_222_222_2, -86.470_383_333_333_3, 197.094_534_1)),
        // iPhone 8, 5×7 tiles, EXIF Orientation 6.
        RealPhoto(
            file: "osxphotos/IMG_0102.HEIC", width: 2320, height: 3088, taken: 1_628_274_742,
            location: (36.112_152_777_777_8, -115.170_708_333_333, 633.329_833_8)),
        // Galaxy S24 Ultra, 200 MP, 24×32 tiles, irot 270, no location.
        RealPhoto(
            file: "pillow_heif/200MP.heic", width: 12240, height: 16320, taken: 1_737_287_607, location: nil,
            rendersThroughAWorker: false),
        // Sony α7S III, 10-bit 4:2:2 HIF, 2×2 tiles of 2176×1472.
        RealPhoto(file: "pillow_heif/cat.hif", width: 4240, height: 2832, taken: 1_600_099_774, location: nil),
    ]

    /// An AVIF image sequence with a still primary image and no EXIF or XMP: its date is its
    /// movie header's, and the catalogue says so.
    @Test func anImageSequenceImportsWithItsMovieHeadersDate() throws {
        try withFixture { f in
            let path = Fixtures.root.appendingPathComponent("corpus/libavif/colors-animated-8bpc.avif").path
            let asset = try f.asset(try f.importer.importFile(path).assetID)
            #expect(asset.creationDate == Date(timeIntervalSince1970: 1_694_021_753))
            #expect(asset.creationDateSource == "QuickTime mvhd")
            #expect(asset.pixelWidth == 150 && asset.pixelHeight == 150)
        }
    }

    @Test(arguments: realPhotos)
    func aRealPhotoImportsWithItsMetadataAndRendersAt64MiB(_ photo: RealPhoto) throws {
        try withFixture { f in
            let path = Fixtures.root.appendingPathComponent("corpus").appendingPathComponent(photo.file).path
            let outcome = try f.importer.importFile(path)
            let asset = try f.asset(outcome.assetID)
            #expect(asset.pixelWidth == photo.width && asset.pixelHeight == photo.height && asset.orientation == 1)
            #expect(asset.creationDate == Date(timeIntervalSince1970: photo.taken))
            #expect(asset.creationDateSource == "EXIF DateTimeOriginal")
            if let location = photo.location {
                #expect(abs(try #require(asset.latitude) - location.latitude) < 1e-9)
                #expect(abs(try #require(asset.longitude) - location.longitude) < 1e-9)
                #expect(abs(try #require(asset.altitude) - location.altitude) < 1e-6)
            } else {
                #expect(asset.latitude == nil && asset.longitude == nil)
            }
            guard photo.rendersThroughAWorker else { return }
            let job = try f.enqueue(outcome.assetID)
            var logger = Logger(label: "real-photo-test")
            logger.logLevel = .critical
            let summary = Worker(
                options: WorkerOptions(
                    databaseURL: f.url, storage: f.storage, concurrency: 1, drain: true, memoryBudget: 64 << 20,
                    workerName: "real-photo-test"),
                logger: logger
            ).run()
            // The Sony's 10-bit tiles (2176×1472 at 12 bytes a pixel) do not fit 64 MiB: refused up
            // front with what it needs, as a budget failure, never a crash.
            if photo.file.hasSuffix("cat.hif") {
                #expect(summary.failed == 1)
                #expect(try f.job(job).error?.hasPrefix("memory_budget_exceeded") == true)
                return
            }
            let state = try f.job(job)
            #expect(summary.succeeded == 1, "\(state)")
            let row = try f.connection.query(
                "SELECT rendered_width, rendered_height FROM darkroom.adjustments WHERE job_id = $1", [.int(job)])[0]
            #expect(try row["rendered_width"].decode(Int.self) == photo.width)
            #expect(try row["rendered_height"].decode(Int.self) == photo.height)
        }
    }
}
