import DarkroomMetadata
import DarkroomTestSupport
import LibExif
import Testing

/// libexif stops walking a directory at a pointer past the end of the data ("Tag data past end
/// of buffer"): what it read before counts, and what it did not reach is read from the block
/// as darkroom's own walk rebuilds it.
@Suite struct LibexifStopTests {
    /// Make and Orientation, then an Exif IFD pointer past the end, then the GPS pointer.
    static func brokenExifPointer(bigEndian: Bool) throws -> [UInt8] {
        var exif = SyntheticExif(bigEndian: bigEndian)
        exif.ifd0 = [exif.ascii(0x010F, "Maker"), exif.short(0x0112, 6)]
        exif.exif = [exif.ascii(0x9003, "2021:07:04 10:15:30")]
        exif.gps = [
            exif.ascii(0x0001, "S"), exif.rationals(0x0002, (33, 1), (51, 1), (5436, 100)),
            exif.ascii(0x0003, "W"), exif.rationals(0x0004, (70, 1), (39, 1), (4020, 100)),
        ]
        var payload = exif.payload
        let entry = try #require(payload.ifd0EntryIndex(of: 0x8769, bigEndian: bigEndian))
        payload.replaceSubrange(entry + 8..<entry + 12, with: exif.encode(UInt32(0x7FFF_FFF0)))
        return payload
    }

    @Test(arguments: [false, true])
    func whatLibexifDidNotReachIsRead(bigEndian: Bool) throws {
        let payload = try Self.brokenExifPointer(bigEndian: bigEndian)
        let document = try ExifDocument(app1Payload: payload)
        #expect(document.value(.gpsLatitude, in: .gps) == nil, "libexif stops before the GPS pointer")
        #expect(!document.warnings.isEmpty)

        let result = MetadataReader.read(app1Payload: payload)
        #expect(result.metadata.orientation == 6)
        #expect(result.metadata.cameraMake == "Maker")
        #expect(isClose(result.metadata.latitude, -dms(33, 51, 54.36)))
        #expect(isClose(result.metadata.longitude, -dms(70, 39, 40.20)))
        #expect(result.metadata.creationDate == nil, "the Exif IFD is nowhere")
        #expect(result.warnings.contains { $0.hasPrefix("libexif: ") }, "libexif's complaint is kept")
    }
}
