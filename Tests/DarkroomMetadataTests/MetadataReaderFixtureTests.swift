import DarkroomMetadata
import DarkroomTestSupport
import Foundation
import Logging
import Testing

/// `MetadataReader` on real camera files, end to end through libexif.
@Suite struct MetadataReaderFixtureTests {
    @Test func dscn0010() throws {
        let result = MetadataReader.read(app1Payload: try exifPayload("gps/DSCN0010.jpg"))
        let metadata = result.metadata
        // N 43° 28' 2.814", E 11° 53' 6.456" (stored as 645599999/100000000 s).
        #expect(isClose(metadata.latitude, 43.467448333, tolerance: 1e-6))
        #expect(isClose(metadata.longitude, 11.885126666, tolerance: 1e-6))
        #expect(metadata.altitude == nil)  // GPSAltitudeRef without GPSAltitude
        #expect(metadata.creationDate == ISO8601DateFormatter().date(from: "2008-10-22T16:28:39Z"))
        #expect(metadata.orientation == 1)
        #expect(metadata.cameraMake == "NIKON")
        #expect(metadata.cameraModel == "COOLPIX P6000")
        #expect(result.warnings == [])
    }

    @Test func southernLatitudeInDecimalMinutes() throws {
        // GPS 0° 22.278' 0" S, 36° 3.385' 0" E.
        let metadata = MetadataReader.read(app1Payload: try exifPayload("Kodak_CX7530.jpg")).metadata
        #expect(isClose(metadata.latitude, -0.3713))
        #expect(isClose(metadata.longitude, dms(36, 3.385, 0)))
        #expect(metadata.cameraMake == "EASTMAN KODAK COMPANY")
        #expect(metadata.creationDate == ISO8601DateFormatter().date(from: "2005-08-13T09:47:23Z"))
    }

    @Test func bigEndianWesternLongitudeAndAltitude() throws {
        // iPhone 6, Motorola byte order: N 40° 26' 49.10", W 3° 43' 29.11", 105532/165 m.
        let result = MetadataReader.read(app1Payload: try exifPayload("hdr/iphone_hdr_NO.jpg"))
        let metadata = result.metadata
        #expect(isClose(metadata.latitude, dms(40, 26, 49.10)))
        #expect(isClose(metadata.longitude, -dms(3, 43, 29.11)))
        #expect(isClose(metadata.altitude, 105532.0 / 165))
        #expect(metadata.cameraMake == "Apple")
        #expect(metadata.cameraModel == "iPhone 6")
        #expect(metadata.creationDate == ISO8601DateFormatter().date(from: "2015-04-10T20:12:23Z"))
    }

    @Test(arguments: 1...8)
    func orientationFixtures(orientation: Int) throws {
        let result = MetadataReader.read(app1Payload: try exifPayload("orientation/landscape_\(orientation).jpg"))
        #expect(result.metadata.orientation == orientation)
        #expect(result.metadata.latitude == nil)
    }

    @Test func canonHDRIsRotated() throws {
        #expect(MetadataReader.read(app1Payload: try exifPayload("canon_hdr_NO.jpg")).metadata.orientation == 6)
    }

    @Test(arguments: ["Canon_40D.jpg", "Nikon_D70.jpg"])
    func noGPSGivesNilLocation(fixture: String) throws {
        let result = MetadataReader.read(app1Payload: try exifPayload(fixture))
        #expect(result.metadata.latitude == nil)
        #expect(result.metadata.longitude == nil)
        #expect(result.metadata.altitude == nil)
        #expect(result.metadata.cameraMake != nil)
        #expect(result.metadata.creationDate != nil)
    }

    @Test func entropyCorruptionDoesNotAffectEXIF() throws {
        let metadata = MetadataReader.read(app1Payload: try exifPayload("corrupted.jpg")).metadata
        #expect(metadata.cameraMake == "OLYMPUS IMAGING CORP.")
        #expect(metadata.cameraModel == "u1020,S1020")
    }

    @Test func noPayloadGivesDefaultsQuietly() {
        let result = MetadataReader.read(app1Payload: nil)
        #expect(result.metadata == PhotoMetadata())
        #expect(result.metadata.orientation == 1)
        #expect(result.warnings.isEmpty)
    }

    /// These files carry XMP in APP1 but no EXIF, so the decoder hands over nil. Fed their
    /// first APP1 payload anyway, as a confused caller might, the reader warns and defaults.
    @Test func invalidFolder() throws {
        let files = try fixtureFiles(in: "invalid")
        #expect(files.count >= 3)
        for file in files {
            let jpeg = try Fixtures.bytes(of: Fixtures.exifSample(file))
            let exif = JPEGSegments.exifPayload(of: jpeg)
            #expect(MetadataReader.read(app1Payload: exif).metadata == PhotoMetadata(), "\(file)")

            let firstAPP1 = try #require(JPEGSegments.segments(of: jpeg).first { $0.marker == 0xE1 }?.payload)
            let result = MetadataReader.read(app1Payload: firstAPP1)
            #expect(result.metadata == PhotoMetadata(), "\(file)")
            #expect(result.warnings.count == 1, "\(file)")
            #expect(result.warnings.first?.contains("Exif\\0\\0") == true, "\(file): \(result.warnings)")
        }
    }

    @Test func parserBreakersReadWithoutCrashing() throws {
        let files = try fixtureFiles(in: "tests")
        #expect(files.count >= 4)
        for file in files {
            let payload = try exifPayload(file)
            let metadata = MetadataReader.read(app1Payload: payload).metadata
            #expect((1...8).contains(metadata.orientation), "\(file)")
        }
        // 67-0_length_string.jpg: Samsung with an empty string tag; the rest still reads.
        let samsung = MetadataReader.read(app1Payload: try exifPayload("tests/67-0_length_string.jpg")).metadata
        #expect(samsung.cameraModel == "SM-G930F")
        #expect(samsung.latitude != nil)
    }

    @Test func loggerConvenienceLogsEachWarningWithFileName() throws {
        let recorder = RecordingLogHandler.Store()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(store: recorder) }
        var payload = SyntheticExif(bigEndian: false)
        payload.ifd0 = [payload.short(0x0112, 9), payload.ascii(0x010F, "Maker")]
        let metadata = MetadataReader.read(app1Payload: payload.payload, source: "IMG_1.jpg", logger: logger)
        #expect(metadata.orientation == 1)
        #expect(metadata.cameraMake == "Maker")
        let records = recorder.records
        #expect(records.count == 1)
        #expect(records.first?.level == .warning)
        #expect(records.first?.metadata["file"] == "IMG_1.jpg")
        #expect(records.first?.message.contains("Orientation") == true)
    }
}

/// Collects log records so a test can look at them; never installed globally.
struct RecordingLogHandler: LogHandler {
    final class Store: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] = []
        var records: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] { lock.withLock { stored } }
        func append(_ record: (level: Logger.Level, message: String, metadata: Logger.Metadata)) {
            lock.withLock { stored.append(record) }
        }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.append((event.level, event.message.description, metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}
