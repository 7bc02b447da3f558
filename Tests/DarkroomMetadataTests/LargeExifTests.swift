import ByteStreams
import DarkroomMetadata
import DarkroomTestSupport
import Foundation
import LibExif
import LibHeif
import Testing

/// EXIF blocks larger than a JPEG's APP1 segment (a HEIF's Exif item has no such bound): read
/// whole, and carried into a render as far as a segment holds.
@Suite struct LargeExifTests {
    /// A date and offset in the Exif IFD and a location in the GPS IFD laid out after a large
    /// MakerNote, so the GPS directory starts past what libexif reads (0xfffe bytes); with
    /// `ifd0Padding`, an IFD0 padding tag puts every directory but IFD0 past it.
    static func large(bigEndian: Bool, makerNote: Int = 120_000, ifd0Padding: Int = 0) -> [UInt8] {
        var exif = SyntheticExif(bigEndian: bigEndian)
        exif.ifd0 = [exif.ascii(0x010F, "Xiaomi"), exif.short(0x0112, 6)]
        if ifd0Padding > 0 { exif.ifd0.append(exif.undefined(0xEA1C, count: ifd0Padding)) }
        exif.exif = [
            exif.ascii(0x9003, "2021:07:04 10:15:30"), exif.ascii(0x9011, "+02:00"),
            exif.undefined(0x927C, count: makerNote), exif.short(0xA002, 4000), exif.short(0xA003, 3000),
        ]
        exif.gps = [
            exif.ascii(0x0001, "N"), exif.rationals(0x0002, (47, 1), (13, 1), (38_240_039, 1_000_000)),
            exif.ascii(0x0003, "E"), exif.rationals(0x0004, (39, 1), (41, 1), (59_971, 1000)),
            exif.byte(0x0005, 0), exif.rationals(0x0006, (958, 10)),
        ]
        exif.thumbnail = [0xFF, 0xD8] + [UInt8](repeating: 0x11, count: 13_000) + [0xFF, 0xD9]
        return exif.payload
    }

    static let date = ISO8601DateFormatter().date(from: "2021-07-04T08:15:30Z")

    static func expectDateAndLocation(_ metadata: PhotoMetadata) {
        #expect(metadata.creationDate == date)
        #expect(isClose(metadata.latitude, dms(47, 13, 38.240039), tolerance: 1e-9))
        #expect(isClose(metadata.longitude, dms(39, 41, 59.971), tolerance: 1e-9))
        #expect(isClose(metadata.altitude, 95.8, tolerance: 1e-9))
        #expect(metadata.cameraMake == "Xiaomi")
    }

    @Test(arguments: [false, true])
    func aBlockPastOneSegmentIsReadWhole(bigEndian: Bool) throws {
        let payload = Self.large(bigEndian: bigEndian)
        #expect(payload.count > 130_000)
        #expect(throws: ExifDocumentError.self, "libexif alone reads no more than one segment") {
            try ExifDocument(app1Payload: payload)
        }
        let result = MetadataReader.read(app1Payload: payload)
        Self.expectDateAndLocation(result.metadata)
        #expect(result.metadata.orientation == 6)
        #expect(result.warnings == [], "the thumbnail and MakerNote are not metadata darkroom reads")
    }

    @Test func valuesDroppedToFitAreNamed() throws {
        let result = MetadataReader.read(app1Payload: Self.large(bigEndian: false, ifd0Padding: 70_000))
        Self.expectDateAndLocation(result.metadata)
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.contains("tag 0xEA1C (70000 bytes)") == true, "\(result.warnings)")
    }

    @Test func aBlockPastTheCapIsRefusedWithAWarning() throws {
        let payload = Self.large(bigEndian: false, makerNote: 4 << 20)
        let result = MetadataReader.read(app1Payload: payload)
        #expect(result.metadata == PhotoMetadata())
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.contains("more than the 4194304 darkroom reads") == true, "\(result.warnings)")
    }

    /// Through libheif: the Exif item of a synthetic HEIF, and of a Xiaomi phone's (192 182 bytes).
    @Test func aHEIFExifItemPastOneSegmentGivesItsDateAndLocation() throws {
        let heic = try HEIFEncoder.encode(
            rgb: HEIFFixtures.quadrants(width: 32, height: 32), width: 32, height: 32,
            encoding: HEIFEncoding.input(exif: Self.large(bigEndian: false)))
        let synthetic = try HEIFDecoder(source: ChunkedSource(heic)).header
        Self.expectDateAndLocation(MetadataReader.read(app1Payload: synthetic.exifPayload).metadata)

        let xiaomi = Fixtures.root.appendingPathComponent("corpus/pillow_heif/xiaomi.heic")
        let header = try HEIFDecoder(source: ChunkedSource(try Fixtures.bytes(of: xiaomi))).header
        #expect((header.exifPayload?.count ?? 0) > 65_533)
        let result = MetadataReader.read(app1Payload: header.exifPayload)
        // exiftool: 2023:04:27 19:44:18 (no offset: read as UTC), 47.2272888997222 N,
        // 39.6999921997222 E, 95.8 m.
        #expect(result.metadata.creationDate == ISO8601DateFormatter().date(from: "2023-04-27T19:44:18Z"))
        #expect(isClose(result.metadata.latitude, 47.2272888997222, tolerance: 1e-9))
        #expect(isClose(result.metadata.longitude, 39.6999921997222, tolerance: 1e-9))
        #expect(isClose(result.metadata.altitude, 95.8, tolerance: 1e-9))
        #expect(result.warnings == [])
    }

    @Test(arguments: [false, true])
    func aRenderCarriesWhatFitsOneSegment(bigEndian: Bool) throws {
        let original = Self.large(bigEndian: bigEndian)
        let fitted = try OutputExif.fitted(app1Payload: original, pixelWidth: 800, pixelHeight: 600)
        #expect(fitted.payload.count <= ExifDocument.maximumPayloadSize)
        #expect(fitted.dropped == ["thumbnail (IFD1)", "MakerNote (120000 bytes)"])
        let result = MetadataReader.read(app1Payload: fitted.payload)
        Self.expectDateAndLocation(result.metadata)
        #expect(result.metadata.orientation == 1)
        #expect(result.warnings == [])
        let document = try ExifDocument(app1Payload: fitted.payload)
        #expect(document.value(.makerNote, in: .exif) == nil)
        #expect(document.tags(in: .one).isEmpty)
        #expect(document.value(.pixelXDimension, in: .exif)?.unsignedIntegers == [800])
        #expect(document.value(.pixelYDimension, in: .exif)?.unsignedIntegers == [600])
    }

    @Test func aRenderOfASmallBlockLeavesNothingOut() throws {
        let original = Self.large(bigEndian: false, makerNote: 1000)
        let fitted = try OutputExif.fitted(app1Payload: original, pixelWidth: 8, pixelHeight: 6)
        #expect(fitted.dropped == [])
        #expect(fitted.payload == (try OutputExif.rewrite(app1Payload: original, pixelWidth: 8, pixelHeight: 6)))
    }

    @Test func aBlockThatCannotFitIsRefused() {
        // 6 000 entries in IFD0 alone are 72 000 bytes of directory: nothing to drop helps.
        var exif = SyntheticExif(bigEndian: false)
        exif.ifd0 = (0..<6000).map { exif.short(UInt16(0x1000 + $0), 1) }
        #expect {
            try OutputExif.fitted(app1Payload: exif.payload, pixelWidth: 8, pixelHeight: 6)
        } throws: { ($0 as? ExifRewriteError)?.code == .payloadTooLarge }
    }
}
