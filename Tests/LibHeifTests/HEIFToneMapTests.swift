import ByteStreams
import DarkroomTestSupport
import Foundation
import LibHeif
import Testing

/// ISO 21496-1 gain maps in HEIF and AVIF: the `tmap` item whose base is the primary, its gain
/// map image located through the item's `dimg` references and decoded; hostile references and
/// sizes are typed errors.
@Suite struct HEIFToneMapTests {
    static func decoder(_ bytes: [UInt8]) throws -> HEIFDecoder {
        try HEIFDecoder(source: ChunkedSource(bytes, name: "tmap.heif", maxChunk: 65536))
    }

    /// libavif's AVIF: items 1 (primary), 2 (tmap), 3 (the map, hidden), a 142-byte tmap; the map
    /// is coded in colour and comes out as RGB at the picture's size.
    @Test func anAVIFsMapIsLocatedAndDecoded() throws {
        let decoder = try Self.decoder(Fixtures.bytes(of: ToneMapFixtures.avif))
        let toneMap = try #require(decoder.header.toneMap)
        #expect(toneMap.id == 2 && toneMap.gainMapIDs == [3] && toneMap.data.count == 142)
        let map = try decoder.decodeToneMapGainMap()
        #expect(map.width == 400 && map.height == 300 && map.channels == 3)
        #expect(map.samples.count == 400 * 300 * 3 && Set(map.samples).count > 64)
        // The primary still decodes after the map.
        try decoder.start()
    }

    /// Samsung's HEIC: the tmap (38) takes the 4000×1848 grid (33) and a 1000×462 grid of two
    /// tiles (37), a quarter per side; coded YCbCr with neutral chroma, so red, green and blue agree.
    @Test func aSamsungHEICsGridMapIsLocatedAndDecoded() throws {
        let decoder = try Self.decoder(Fixtures.bytes(of: ToneMapFixtures.samsung))
        let toneMap = try #require(decoder.header.toneMap)
        #expect(toneMap.id == 38 && toneMap.gainMapIDs == [37] && toneMap.data.count == 62)
        let map = try decoder.decodeToneMapGainMap()
        #expect(map.width == 1000 && map.height == 462 && map.channels == 3)
        let samples = map.samples
        let grey = stride(from: 0, to: samples.count, by: 3).allSatisfy { (index: Int) -> Bool in
            samples[index] == samples[index + 1] && samples[index] == samples[index + 2]
        }
        #expect(grey)
        #expect(Set(map.samples).count > 16)
    }

    @Test func aFileWithoutATmapHasNone() throws {
        let decoder = try Self.decoder(Fixtures.bytes(of: HEIFFixtures.arrow))
        #expect(decoder.header.toneMap == nil)
        #expect(throws: HEIFError.self) { try decoder.decodeToneMapGainMap() }
    }

    @Test func theMapIsDecodedOnlyBeforeTheImage() throws {
        let decoder = try Self.decoder(Fixtures.bytes(of: ToneMapFixtures.avif))
        try decoder.start()
        do {
            _ = try decoder.decodeToneMapGainMap()
            Issue.record("decoded the map after start")
        } catch {
            #expect(error.code == .misuse)
        }
    }

    /// References that name no image or the tmap itself, a map of an absurd size, a tmap turned
    /// on its own: each a typed error naming the file and the tmap item, and the picture still opens.
    @Test(arguments: [
        (ToneMapFixtures.Hostile.dangling, HEIFError.Code.corrupt, "not an image"),
        (.mapIsItself, .corrupt, "is the tmap itself"),
        (.absurdSize, .tooLarge, "9216×462 for a 4000×1848 picture"),
        (.tmapTurned, .unsupported, "its own irot, imir or clap"),
    ])
    func aHostileTmapIsATypedError(variant: ToneMapFixtures.Hostile, code: HEIFError.Code, says: String) throws {
        let decoder = try Self.decoder(ToneMapFixtures.bytes(variant))
        #expect(decoder.header.toneMap != nil)
        do {
            _ = try decoder.decodeToneMapGainMap()
            Issue.record("decoded a map from \(variant)")
        } catch {
            #expect(error.code == code && error.message.contains(says), "\(error)")
            #expect(error.object.hasPrefix("tmap.heif (tmap item"), "\(error)")
        }
        try decoder.start()
    }

    /// A tmap whose data lie past the end of the file: the picture opens, the tmap says why.
    @Test func aTmapWhoseDataAreMissingStillOpens() throws {
        let decoder = try Self.decoder(ToneMapFixtures.bytes(.dataOutsideTheFile))
        let toneMap = try #require(decoder.header.toneMap)
        let error = try #require(toneMap.dataError)
        #expect(toneMap.data.isEmpty && error.isDamagedData, "\(error)")
        try decoder.start()
    }

    /// A dimg naming the primary twice: libheif refuses the whole file, typed.
    @Test func aMapThatIsThePrimaryIsACorruptFile() throws {
        do {
            _ = try Self.decoder(ToneMapFixtures.bytes(.mapIsThePrimary))
            Issue.record("opened a tmap whose map is its base")
        } catch let error as HEIFError {
            #expect(error.code == .corrupt, "\(error)")
        }
    }

    /// A tmap whose base is not the primary is some other picture's: the file has no gain map.
    @Test func aTmapOfAnotherImageIsNotThePictures() throws {
        let decoder = try Self.decoder(ToneMapFixtures.bytes(.notForThePrimary))
        #expect(decoder.header.toneMap == nil)
    }
}
