import DarkroomMetadata
import DarkroomTestSupport
import Foundation
import Testing

/// `MetadataReader` on hand-built payloads, for cases no bundled photo covers.
@Suite struct MetadataReaderSyntheticTests {
    private func gpsPayload(bigEndian: Bool, edit: (inout SyntheticExif) -> Void = { _ in }) -> [UInt8] {
        var exif = SyntheticExif(bigEndian: bigEndian)
        exif.ifd0 = [exif.short(0x0112, 1)]
        exif.gps = [
            exif.ascii(0x0001, "S"), exif.rationals(0x0002, (33, 1), (51, 1), (5436, 100)),
            exif.ascii(0x0003, "W"), exif.rationals(0x0004, (70, 1), (39, 1), (4020, 100)),
            exif.byte(0x0005, 1), exif.rationals(0x0006, (4255, 10)),
        ]
        edit(&exif)
        return exif.payload
    }

    @Test(arguments: [false, true])
    func southWestBelowSeaLevel(bigEndian: Bool) throws {
        let result = MetadataReader.read(app1Payload: gpsPayload(bigEndian: bigEndian))
        // 33° 51' 54.36" S, 70° 39' 40.20" W, 425.5 m below sea level.
        #expect(isClose(result.metadata.latitude, -dms(33, 51, 54.36)))
        #expect(isClose(result.metadata.longitude, -dms(70, 39, 40.20)))
        #expect(result.metadata.altitude == -425.5)
        #expect(result.warnings.isEmpty)
    }

    @Test func badRationalsGiveNilWithWarnings() {
        let payload = gpsPayload(bigEndian: false) { exif in
            exif.gps = [
                exif.ascii(0x0001, "N"), exif.rationals(0x0002, (33, 1), (51, 0), (0, 1)),
                exif.ascii(0x0003, "Q"), exif.rationals(0x0004, (70, 1), (39, 1), (40, 1)),
                exif.byte(0x0005, 7), exif.rationals(0x0006, (10, 1)),
            ]
        }
        let result = MetadataReader.read(app1Payload: payload)
        #expect(result.metadata.latitude == nil)
        #expect(result.metadata.longitude == nil)
        #expect(result.metadata.altitude == nil)
        #expect(result.warnings.count == 3)
        #expect(result.warnings.contains { $0.contains("GPSLatitude") && $0.contains("33/1, 51/0") })
        #expect(result.warnings.contains { $0.contains("GPSLongitude") && $0.contains("\"Q\"") })
        #expect(result.warnings.contains { $0.contains("GPSAltitude") })
    }

    @Test func nonNegativeSignedRationalsAreAccepted() {
        // HMD Nokia 8.3 writes GPS as SRATIONAL; a negative part would still be rejected.
        let payload = gpsPayload(bigEndian: true) { exif in
            exif.gps[1] = exif.signedRationals(0x0002, (60, 1), (8, 1), (4814, 100))
            exif.gps[3] = exif.signedRationals(0x0004, (24, 1), (-54, 1), (2438, 100))
        }
        let result = MetadataReader.read(app1Payload: payload)
        #expect(isClose(result.metadata.latitude, -dms(60, 8, 48.14)))
        #expect(result.metadata.longitude == nil)
        #expect(result.warnings.count == 1)
    }

    @Test func coordinateWithoutReferenceIsIgnored() {
        let payload = gpsPayload(bigEndian: true) { exif in
            exif.gps.removeAll { $0.tag == 0x0001 }
        }
        let result = MetadataReader.read(app1Payload: payload)
        #expect(result.metadata.latitude == nil)
        #expect(result.metadata.longitude != nil)
        #expect(
            result.warnings == ["GPSLatitude is present but GPSLatitudeRef (N/S or E/W) is missing; location ignored."])
    }

    @Test func missingTagsGiveNilsAndNoWarnings() {
        var exif = SyntheticExif(bigEndian: false)
        exif.ifd0 = [exif.short(0x011A - 2, 1)]  // an unrelated tag (0x0118 MinSampleValue)
        let result = MetadataReader.read(app1Payload: exif.payload)
        #expect(result.metadata == PhotoMetadata())
        #expect(result.warnings.isEmpty)
    }

    @Test(arguments: [false, true])
    func offsetTimeOriginalIsApplied(bigEndian: Bool) {
        var exif = SyntheticExif(bigEndian: bigEndian)
        exif.ifd0 = [exif.ascii(0x0132, "2020:01:01 00:00:00")]
        exif.exif = [exif.ascii(0x9003, "2019:06:30 23:15:00"), exif.ascii(0x9011, "-05:30")]
        let result = MetadataReader.read(app1Payload: exif.payload)
        #expect(result.metadata.creationDate == ISO8601DateFormatter().date(from: "2019-07-01T04:45:00Z"))
        #expect(result.warnings.isEmpty)
    }

    @Test func malformedOffsetFallsBackToUTCWithWarning() {
        var exif = SyntheticExif(bigEndian: false)
        exif.exif = [exif.ascii(0x9003, "2019:06:30 23:15:00"), exif.ascii(0x9011, "EST")]
        let result = MetadataReader.read(app1Payload: exif.payload)
        #expect(result.metadata.creationDate == ISO8601DateFormatter().date(from: "2019-06-30T23:15:00Z"))
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.contains("0x9011") == true)
    }

    @Test func dateFallsBackToDigitizedThenDateTime() {
        var exif = SyntheticExif(bigEndian: false)
        exif.ifd0 = [exif.ascii(0x0132, "2020:01:01 10:00:00")]
        exif.exif = [
            exif.ascii(0x9003, "0000:00:00 00:00:00"), exif.ascii(0x9004, "2018:05:05 05:05:05"),
            exif.ascii(0x9012, "+01:00"),
        ]
        var result = MetadataReader.read(app1Payload: exif.payload)
        #expect(result.metadata.creationDate == ISO8601DateFormatter().date(from: "2018-05-05T04:05:05Z"))
        #expect(result.warnings.isEmpty)  // all zeros means "unknown", not corrupt

        exif.exif = [exif.ascii(0x9003, "garbage"), exif.ascii(0x9010, "+02:00")]
        result = MetadataReader.read(app1Payload: exif.payload)
        #expect(result.metadata.creationDate == ISO8601DateFormatter().date(from: "2020-01-01T08:00:00Z"))
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.contains("DateTimeOriginal \"garbage\"") == true)
    }

    @Test(arguments: [0, 9, 65535] as [UInt16])
    func orientationOutOfRangeIsUpright(value: UInt16) {
        var exif = SyntheticExif(bigEndian: true)
        exif.ifd0 = [exif.short(0x0112, value)]
        let result = MetadataReader.read(app1Payload: exif.payload)
        #expect(result.metadata.orientation == 1)
        #expect(result.warnings.count == 1)
    }

    @Test func orientationStoredAsLongIsAccepted() {
        var exif = SyntheticExif(bigEndian: false)
        exif.ifd0 = [exif.long(0x0112, 8)]
        #expect(MetadataReader.read(app1Payload: exif.payload).metadata.orientation == 8)
    }

    @Test func makeAndModelArePaddingTrimmed() {
        var exif = SyntheticExif(bigEndian: false)
        exif.ifd0 = [exif.ascii(0x010F, "  Canon   "), exif.ascii(0x0110, "      ")]
        let metadata = MetadataReader.read(app1Payload: exif.payload).metadata
        #expect(metadata.cameraMake == "Canon")
        #expect(metadata.cameraModel == nil)
    }

    /// An ISO 8601 string in DateTimeOriginal is a date, not a warning; OffsetTimeOriginal
    /// applies when the string has no zone of its own.
    @Test(arguments: [("2021-07-04T10:15:30+02:00", nil as String?), ("2021-07-04T10:15:30", "+02:00")])
    func iso8601DateTimeOriginalIsRead(value: String, offset: String?) {
        var exif = SyntheticExif(bigEndian: false)
        exif.ifd0 = [exif.short(0x0112, 1)]
        exif.exif = [exif.ascii(0x9003, value)] + (offset.map { [exif.ascii(0x9011, $0)] } ?? [])
        let result = MetadataReader.read(app1Payload: exif.payload)
        #expect(result.metadata.creationDate == ISO8601DateFormatter().date(from: "2021-07-04T08:15:30Z"))
        #expect(result.warnings == [])
    }
}
