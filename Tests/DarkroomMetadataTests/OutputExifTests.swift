import DarkroomMetadata
import DarkroomTestSupport
import LibExif
import Testing

/// `OutputExif.rewrite` round trips: the result is re-read with libexif and compared with the
/// original tag by tag.
@Suite struct OutputExifTests {
    private static let patched: [ExifIFD: Set<ExifTag>] = [
        .zero: [.orientation], .exif: [.pixelXDimension, .pixelYDimension],
    ]

    /// Rewrites `original` and checks everything the rendered JPEG relies on.
    private func checkRoundTrip(_ original: [UInt8], width: Int, height: Int, _ name: String) throws {
        let rewritten = try OutputExif.rewrite(app1Payload: original, pixelWidth: width, pixelHeight: height)
        #expect(rewritten.count == original.count, "\(name)")
        #expect(Array(rewritten.prefix(8)) == Array(original.prefix(8)), "\(name): header and byte order kept")

        let before = try ExifDocument(app1Payload: original)
        let after = try ExifDocument(app1Payload: rewritten)
        #expect(after.warnings == before.warnings, "\(name)")

        if before.value(.orientation, in: .zero) != nil {
            #expect(after.value(.orientation, in: .zero) == .shorts([1]), "\(name)")
        } else {
            #expect(after.value(.orientation, in: .zero) == nil, "\(name): a missing Orientation stays missing")
        }
        if before.value(.pixelXDimension, in: .exif) != nil {
            #expect(after.value(.pixelXDimension, in: .exif)?.unsignedIntegers == [UInt32(width)], "\(name)")
            #expect(after.value(.pixelYDimension, in: .exif)?.unsignedIntegers == [UInt32(height)], "\(name)")
        }

        #expect(after.thumbnail == nil, "\(name)")
        #expect(after.tags(in: .one).isEmpty, "\(name)")

        // Every other tag, MakerNote included, is unchanged.
        for ifd in [ExifIFD.zero, .exif, .gps, .interoperability] {
            #expect(after.tags(in: ifd) == before.tags(in: ifd), "\(name) \(ifd)")
            for tag in before.tags(in: ifd) where Self.patched[ifd]?.contains(tag) != true {
                #expect(after.value(tag, in: ifd) == before.value(tag, in: ifd), "\(name) \(ifd) \(tag)")
            }
        }

        // Byte level: the old thumbnail is erased, and outside it only a few entries changed.
        if let thumbnail = before.thumbnail, let range = original.firstRange(of: thumbnail) {
            #expect(rewritten[range].allSatisfy { $0 == 0 }, "\(name): old thumbnail pixels erased")
            let changedElsewhere = original.indices.filter { !range.contains($0) && original[$0] != rewritten[$0] }
            #expect(changedElsewhere.count <= 3 * 12 + 4, "\(name)")
        }

        var expected = MetadataReader.read(app1Payload: original).metadata
        expected.orientation = 1
        #expect(MetadataReader.read(app1Payload: rewritten).metadata == expected, "\(name)")
    }

    @Test(arguments: [
        "gps/DSCN0010.jpg",  // little-endian, Nikon MakerNote, GPS
        "Nikon_D70.jpg",  // little-endian
        "Canon_40D.jpg",  // little-endian
        "Kodak_CX7530.jpg",  // little-endian, dimensions as SHORT[2]
        "hdr/iphone_hdr_NO.jpg",  // big-endian, Apple MakerNote, GPS
        "orientation/landscape_6.jpg",  // big-endian, no thumbnail
        "canon_hdr_NO.jpg",
    ])
    func realFiles(fixture: String) throws {
        let original = try exifPayload(fixture)
        try checkRoundTrip(original, width: 600, height: 450, fixture)
    }

    @Test func rotatedFixturesBecomeUpright() throws {
        for orientation in 1...8 {
            let rewritten = try OutputExif.rewrite(
                app1Payload: try exifPayload("orientation/landscape_\(orientation).jpg"), pixelWidth: 450,
                pixelHeight: 600
            )
            #expect(MetadataReader.read(app1Payload: rewritten).metadata.orientation == 1)
        }
    }

    @Test(arguments: [false, true])
    func syntheticWithThumbnailAndGPS(bigEndian: Bool) throws {
        var exif = SyntheticExif(bigEndian: bigEndian)
        exif.ifd0 = [exif.ascii(0x010F, "Maker"), exif.ascii(0x0110, "Model X"), exif.short(0x0112, 6)]
        exif.exif = [exif.ascii(0x9003, "2019:06:30 23:15:00"), exif.short(0xA002, 4000), exif.short(0xA003, 3000)]
        exif.gps = [exif.ascii(0x0003, "W"), exif.rationals(0x0004, (70, 1), (39, 1), (4020, 100))]
        exif.thumbnail = [0xFF, 0xD8] + (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) } + [0xFF, 0xD9]
        try checkRoundTrip(exif.payload, width: 3000, height: 4000, "synthetic bigEndian=\(bigEndian)")

        let rewritten = try OutputExif.rewrite(app1Payload: exif.payload, pixelWidth: 3000, pixelHeight: 4000)
        let after = try ExifDocument(app1Payload: rewritten)
        #expect(after.value(.pixelXDimension, in: .exif) == .shorts([3000]), "SHORT kept when the value fits")
    }

    @Test func dimensionTooLargeForShortBecomesLong() throws {
        var exif = SyntheticExif(bigEndian: true)
        exif.ifd0 = [exif.short(0x0112, 8)]
        exif.exif = [exif.short(0xA002, 100), exif.short(0xA003, 100)]
        let rewritten = try OutputExif.rewrite(app1Payload: exif.payload, pixelWidth: 70_000, pixelHeight: 5)
        let after = try ExifDocument(app1Payload: rewritten)
        #expect(after.value(.pixelXDimension, in: .exif) == .longs([70_000]))
        #expect(after.value(.pixelYDimension, in: .exif) == .shorts([5]))
    }

    @Test func missingOrientationAndDimensionsStayMissing() throws {
        var exif = SyntheticExif(bigEndian: false)
        exif.ifd0 = [exif.ascii(0x010F, "Maker")]
        exif.exif = [exif.ascii(0x9003, "2019:06:30 23:15:00")]
        let original = exif.payload
        let rewritten = try OutputExif.rewrite(app1Payload: original, pixelWidth: 10, pixelHeight: 20)
        #expect(rewritten == original, "nothing to patch, no thumbnail to drop")
    }
}
