import ByteStreams
import DarkroomMetadata
import DarkroomTestSupport
import Foundation
import LibHeif
import Testing

/// Dates and locations from XMP, for photos whose EXIF has none.
@Suite struct XMPMetadataTests {
    static func packet(_ description: String, elements: String = "") -> [UInt8] {
        Array(
            """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
              xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
              \(description)>\(elements)</rdf:Description></rdf:RDF></x:xmpmeta>
            <?xpacket end="w"?>
            """.utf8)
    }

    static let lightroom = packet(
        #"xmp:CreateDate="2021-07-04T10:15:30.25+02:00" exif:GPSLatitude="47,13.637334N" exif:GPSLongitude="39,41,59.97E""#
    )

    /// The XMP APP1 payload of a fixture, without its signature.
    static func xmpPacket(_ fixture: String) throws -> [UInt8] {
        let signature = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
        let jpeg = try Fixtures.bytes(of: Fixtures.exifSample(fixture))
        let segment = try #require(
            JPEGSegments.segments(of: jpeg).first { $0.marker == 0xE1 && $0.payload.starts(with: signature) })
        return Array(segment.payload.dropFirst(signature.count))
    }

    @Test func lightroomsDateAndLocation() throws {
        let xmp = try XMPMetadata.read(packet: Self.lightroom)
        #expect(xmp.creationDate == Date(timeIntervalSince1970: 1_625_386_530.25))  // 2021-07-04T08:15:30.25Z
        #expect(xmp.dateProperty == "xmp:CreateDate")
        #expect(abs((xmp.latitude ?? 0) - (47 + 13.637334 / 60)) < 1e-9)
        #expect(abs((xmp.longitude ?? 0) - (39 + 41.0 / 60 + 59.97 / 3600)) < 1e-9)
        #expect(xmp.warnings == [])
    }

    @Test func theMostSpecificDateWinsAndElementsCount() throws {
        let packet = Self.packet(
            #"xmp:CreateDate="2020-01-01T00:00:00Z" photoshop:DateCreated="2019-01-01T00:00:00Z""#,
            elements: "<exif:DateTimeOriginal>2018-05-06T07:08:09-03:00</exif:DateTimeOriginal>"
                + "<exif:GPSLatitude>33,51.906S</exif:GPSLatitude><exif:GPSLongitude>70,39.67W</exif:GPSLongitude>")
        let xmp = try XMPMetadata.read(packet: packet)
        #expect(xmp.creationDate == ISO8601DateFormatter().date(from: "2018-05-06T10:08:09Z"))
        #expect(xmp.dateProperty == "exif:DateTimeOriginal")
        #expect(abs((xmp.latitude ?? 0) + (33 + 51.906 / 60)) < 1e-9)
        #expect(abs((xmp.longitude ?? 0) + (70 + 39.67 / 60)) < 1e-9)
    }

    @Test func unusableValuesAreWarningsAndTheNextDateIsTried() throws {
        let packet = Self.packet(
            #"exif:DateTimeOriginal="yesterday" photoshop:DateCreated="2019-01-01" xmp:CreateDate="2020-02-03T04:05Z" exif:GPSLatitude="91,0N" exif:GPSLongitude="10,0E""#
        )
        let xmp = try XMPMetadata.read(packet: packet)
        #expect(xmp.creationDate == ISO8601DateFormatter().date(from: "2020-02-03T04:05:00Z"))
        #expect(xmp.latitude == nil && xmp.longitude == nil)
        #expect(xmp.warnings.count == 3, "\(xmp.warnings)")
    }

    static let longitudes: [(String, Double)] = [
        ("47,13E", 47.216_666_666_666_67), ("47,13.5,10E", 47.227_777_777_777_78), ("0,0W", 0), ("180,0W", -180),
    ]

    @Test(arguments: longitudes)
    func coordinatesInRange(text: String, degrees: Double) throws {
        let xmp = try XMPMetadata.read(packet: Self.packet(#"exif:GPSLatitude="0,0N" exif:GPSLongitude="\#(text)""#))
        #expect(xmp.longitude.map { abs($0 - degrees) < 1e-9 } == true, "\(text): \(String(describing: xmp.longitude))")
    }

    @Test(arguments: [
        "47N", "47,60N", "47,1,60N", "47,13", "47,13X", "inf,0N", "1e3,0N", "47,,N", "-47,13N", "47,13.5.1N",
    ])
    func malformedCoordinates(text: String) throws {
        let xmp = try XMPMetadata.read(packet: Self.packet(#"exif:GPSLatitude="\#(text)" exif:GPSLongitude="10,0E""#))
        #expect(xmp.latitude == nil && xmp.longitude == nil)
        #expect(xmp.warnings.count == 1)
    }

    @Test func hostilePacketsAreRefused() {
        let bomb = Array(
            #"<!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><x:xmpmeta xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreateDate="&b;"/>"#
                .utf8)
        #expect {
            try XMPMetadata.read(packet: bomb)
        } throws: { ($0 as? XMPMetadataError)?.code == .declaresDTD }
        let huge = Self.lightroom + [UInt8](repeating: 0x20, count: XMPMetadata.maxPacketBytes)
        #expect {
            try XMPMetadata.read(packet: huge)
        } throws: { ($0 as? XMPMetadataError)?.code == .tooLarge }
        let atLimit =
            Self.lightroom + [UInt8](repeating: 0x20, count: XMPMetadata.maxPacketBytes - Self.lightroom.count)
        #expect((try? XMPMetadata.read(packet: atLimit))?.creationDate != nil)
        #expect((try? XMPMetadata.read(packet: Array("not xml <<<< \" ' >".utf8)))?.creationDate == nil)
    }

    @Test func exifWinsAndXMPFillsWhatItLacks() {
        var exif = SyntheticExif(bigEndian: false)
        exif.ifd0 = [exif.short(0x0112, 6)]
        exif.exif = [exif.ascii(0x9003, "2008:10:22 16:28:39")]
        let result = MetadataReader.read(app1Payload: exif.payload, xmpPacket: Self.lightroom)
        #expect(result.metadata.creationDate == ISO8601DateFormatter().date(from: "2008-10-22T16:28:39Z"))
        #expect(result.metadata.creationDateSource == "EXIF DateTimeOriginal")
        #expect(result.metadata.latitude != nil, "the location comes from XMP")
        #expect(result.metadata.orientation == 6)

        let xmpOnly = MetadataReader.read(app1Payload: nil, xmpPacket: Self.lightroom)
        #expect(xmpOnly.metadata.creationDateSource == "XMP xmp:CreateDate")
        #expect(xmpOnly.metadata.creationDate == Date(timeIntervalSince1970: 1_625_386_530.25))
        #expect(xmpOnly.warnings == [])
    }

    /// exif-samples `invalid/`: Adobe Fireworks wrote XMP and no EXIF.
    @Test(arguments: [
        ("invalid/image00971.jpg", "2010-04-13T07:37:22Z"), ("invalid/image01551.jpg", "2011-09-23T12:43:03Z"),
    ])
    func fixturesWithOnlyXMP(fixture: String, expected: String) throws {
        let result = MetadataReader.read(app1Payload: nil, xmpPacket: try Self.xmpPacket(fixture))
        #expect(result.metadata.creationDate == ISO8601DateFormatter().date(from: expected))
        #expect(result.metadata.creationDateSource == "XMP xmp:CreateDate")
    }

    @Test func aHEIFsXMPItemReachesTheHeader() throws {
        let heic = try HEIFEncoder.encode(
            rgb: HEIFFixtures.quadrants(width: 32, height: 32), width: 32, height: 32,
            encoding: HEIFEncoding.input(xmp: Self.lightroom))
        let header = try HEIFDecoder(source: ChunkedSource(heic)).header
        #expect(header.xmpPacket == Self.lightroom)
        #expect(
            MetadataReader.read(app1Payload: header.exifPayload, xmpPacket: header.xmpPacket).metadata.latitude != nil)
    }
}
