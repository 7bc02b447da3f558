import GainMaps
import Testing

@Suite struct MPFIndexTests {
    static let index = MPFIndex(images: [
        MPFIndex.Image(attribute: 0x2003_0000, size: 44891, offset: 0),
        MPFIndex.Image(attribute: 0, size: 6003, offset: 44821),
    ])

    @Test(arguments: [true, false])
    func writtenIndexReadsBack(bigEndian: Bool) throws {
        var index = Self.index
        index.bigEndian = bigEndian
        let payload = index.encoded()
        #expect(payload.count == MPFIndex.encodedLength(imageCount: 2))
        #expect(try MPFIndex(app2Payload: payload) == index)
        #expect(index.images[0].type == MPFIndex.Image.baselinePrimary && index.images[0].format == 0)
    }

    /// Every prefix of a valid index is refused with a typed error, never a crash.
    @Test func everyCutIsRefused() {
        let payload = Self.index.encoded()
        for length in 0..<payload.count {
            #expect(throws: GainMapError.self) { try MPFIndex(app2Payload: Array(payload.prefix(length))) }
        }
    }

    @Test func absurdCountsAndOffsetsAreRefused() throws {
        let payload = Self.index.encoded()
        func refused(_ code: GainMapError.Code, _ change: (inout [UInt8]) -> Void) {
            var bytes = payload
            change(&bytes)
            #expect(throws: GainMapError.self) { try MPFIndex(app2Payload: bytes) }
            #expect((try? MPFIndex(app2Payload: bytes)) == nil)
            do {
                _ = try MPFIndex(app2Payload: bytes)
            } catch {
                #expect(error.code == code, "\(error)")
            }
        }
        // Offsets from the payload's start: "MPF\0" (4), header (8), count (2), then 12-byte entries.
        let numberValue = 4 + 8 + 2 + 12 + 8
        refused(.tooLarge) { $0.replaceSubrange(numberValue..<numberValue + 4, with: [0xFF, 0xFF, 0xFF, 0xFF]) }
        refused(.tooLarge) { $0.replaceSubrange(numberValue..<numberValue + 4, with: [0, 0, 0, 0]) }
        refused(.inconsistent) { $0.replaceSubrange(numberValue..<numberValue + 4, with: [0, 0, 0, 3]) }
        let entriesOffset = 4 + 8 + 2 + 24 + 8
        refused(.inconsistent) { $0.replaceSubrange(entriesOffset..<entriesOffset + 4, with: [0x7F, 0, 0, 0]) }
        refused(.inconsistent) { $0.replaceSubrange(4 + 4..<4 + 8, with: [0xFF, 0xFF, 0xFF, 0xF0]) }
        refused(.unsupported) { $0[4 + 8 + 2 + 8] = UInt8(ascii: "2") }
        refused(.malformed) { $0[4] = UInt8(ascii: "X") }
        refused(.malformed) { $0[0] = 0 }
        // The first image must start at offset 0.
        let firstOffset = 4 + 50 + 8
        refused(.inconsistent) { $0[firstOffset + 3] = 1 }
        // An IFD claiming 60000 entries.
        refused(.tooLarge) { $0.replaceSubrange(12..<14, with: [0xEA, 0x60]) }
    }

    /// An MPF offset beyond the file: the locator says which image lies outside.
    @Test func imageOutsideTheFileIsInconsistent() throws {
        var bytes = try GainMapFiles.bytes("gainmaps/apple_gainmap_new.jpg")
        let segment = try #require(
            try JPEGSegments.read(bytes).first { bytes[$0.payload].starts(with: MPFIndex.signature) })
        var index = try MPFIndex(app2Payload: Array(bytes[segment.payload]))
        index.images[1].offset = 0x7FFF_0000
        bytes.replaceSubrange(segment.payload, with: index.encoded())
        #expect(
            throws: GainMapError(
                .inconsistent, .mpfIndex,
                "MP image 2 (6003 bytes at offset 2147418112) lies outside the \(bytes.count)-byte file or starts no JPEG"
            )
        ) { try GainMapJPEG.locate(in: bytes) }
    }

    /// A file cut anywhere in its markers or its gain map fails typed (or finds no gain map).
    @Test func cutFilesNeverCrash() throws {
        let bytes = try GainMapFiles.bytes("gainmaps/seine_sdr_gainmap_srgb.jpg")
        let found = try #require(try GainMapJPEG.locate(in: bytes))
        for length in stride(from: 0, to: bytes.count, by: 97) {
            _ = try? GainMapJPEG.locate(in: Array(bytes.prefix(length)))
        }
        #expect(throws: GainMapError.self) {
            try GainMapJPEG.locate(in: Array(bytes.prefix(found.range.lowerBound + 40)))
        }
    }
}
