import GainMaps
import Testing

@Suite struct AppleHeadroomTests {
    /// Apple's formula by hand, one case per branch.
    @Test(arguments: [
        (0.5, 0.0, 1.8), (0.5, 0.01, 1.6), (0.5, 1.0, 1.5), (1.5, 0.0, 3.0), (1.5, 0.01, 2.3), (1.5, 1.0, 2.0),
    ])
    func stopsByBranch(headroom: Double, gain: Double, stops: Double) {
        let tags = AppleHeadroom.MakerNoteTags(headroom: headroom, gain: gain)
        #expect(abs(AppleHeadroom.stops(tags) - stops) < 1e-12)
    }

    @Test func metadataIsLibavifsReading() throws {
        let metadata = try AppleHeadroom.metadata(linearHeadroom: 4)
        #expect(metadata.gainMapMin == .zero && metadata.gainMapMax == SIMD3(repeating: 2))
        #expect(metadata.baseOffset == .zero && metadata.alternateOffset == .zero && metadata.gamma == .one)
        #expect(metadata.baseHeadroom == 0 && metadata.alternateHeadroom == 2)
        #expect(throws: GainMapError.self) { try AppleHeadroom.metadata(stops: 0) }
        #expect(throws: GainMapError.self) { try AppleHeadroom.metadata(stops: .nan) }
        // Tag 48 large enough makes Apple's formula negative: no HDR effect.
        #expect(AppleHeadroom.stops(AppleHeadroom.MakerNoteTags(headroom: 2, gain: 8)) < 0)
    }

    /// The MakerNote of a real iPhone JPEG; every cut of its EXIF block fails typed or finds nothing.
    @Test func makerNoteOfARealFileAndItsCuts() throws {
        let bytes = try GainMapFiles.bytes("gainmaps/apple_gainmap_old.jpg")
        let exif: [UInt8] = Array("Exif".utf8) + [0, 0]
        let segment = try #require(try JPEGSegments.read(bytes).first { bytes[$0.payload].starts(with: exif) })
        let payload = Array(bytes[segment.payload])
        let tags = try #require(try AppleHeadroom.makerNoteTags(exifPayload: payload))
        #expect(abs(tags.headroom - 1.518931985) < 1e-9 && tags.gain == 0)
        // The parser throws only GainMapError (typed throws): a cut may fail or find nothing.
        for length in 0..<payload.count {
            _ = try? AppleHeadroom.makerNoteTags(exifPayload: Array(payload.prefix(length)))
        }
    }
}
