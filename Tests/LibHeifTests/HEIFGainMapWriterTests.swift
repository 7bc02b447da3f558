import ByteStreams
import DarkroomTestSupport
import Foundation
import LibHeif
import Testing

/// An AVIF written with an ISO 21496-1 gain map: libavif's own HDR photo (its picture, its colour
/// map and its `tmap` metadata) written again by darkroom, then read by libheif's tools, exiftool
/// and darkroom's decoder: the map is a hidden item, the `tmap` derives from the picture and the
/// map and is preferred to the picture in an `altr` group, and every item's data is where `iloc`
/// says after the boxes grew.
@Suite struct HEIFGainMapWriterTests {
    struct Source {
        var picture: DecodedImage
        var map: HEIFGainMapImage
        var toneMapItem: [UInt8]
    }

    static func libavifPhoto() throws -> Source {
        let bytes = try Fixtures.bytes(of: ToneMapFixtures.avif)
        let decoder = try HEIFDecoder(source: ChunkedSource(bytes, name: "seine.avif", maxChunk: 1 << 16))
        let toneMap = try #require(decoder.header.toneMap)
        let map = try decoder.decodeToneMapGainMap()
        let pixels = try HEIFDecoderTests.decodeAll(decoder)
        let picture = DecodedImage(width: decoder.header.width, height: decoder.header.height, pixels: pixels)
        return Source(picture: picture, map: map, toneMapItem: toneMap.data)
    }

    static func write(_ source: Source, grey: Bool, settings: HEIFWriteSettings = HEIFWriteSettings(quality: 70))
        throws(HEIFError) -> [UInt8]
    {
        let samples =
            grey
            ? stride(from: 0, to: source.map.samples.count, by: 3).map { source.map.samples[$0] } : source.map.samples
        let gainMap = HEIFGainMapPicture(
            width: source.map.width, height: source.map.height, channels: grey ? 1 : 3, samples: samples,
            toneMapItem: source.toneMapItem)
        return try source.picture.pixels.withUnsafeBufferPointer { rgb throws(HEIFError) in
            try HEIFWriter.encode(
                rgb: rgb, width: source.picture.width, height: source.picture.height, settings: settings,
                gainMap: gainMap, name: "renders/ab/preview.avif")
        }
    }

    @Test(arguments: [false, true])
    func theMapIsAHiddenAlternativeOthersRead(grey: Bool) throws {
        let source = try Self.libavifPhoto()
        let exif = HEIFFixtures.exif(orientation: 1, gps: false)
        let bytes = try Self.write(source, grey: grey, settings: HEIFWriteSettings(quality: 70, exif: exif))
        let file = HEIFWriterTests.temporaryFile(".avif")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try HEIFFixtures.write(bytes, to: file)

        // libheif's tools: one image (the map is hidden), the tmap brand, and the picture decodes.
        let info = try #require(try HEIFWriterTests.run("/usr/bin/heif-info", [file]), "heif-info cannot read it")
        #expect(info.components(separatedBy: "\nimage: ").count == 2, "\(info)")
        #expect(info.contains("compatible brands:") && info.contains("tmap"), "\(info)")
        let jpeg = HEIFWriterTests.temporaryFile(".jpg")
        defer { try? FileManager.default.removeItem(atPath: jpeg) }
        #expect(try HEIFWriterTests.run("/usr/bin/heif-dec", ["-q", "100", file, jpeg]) != nil)
        let theirs = try DecodedImage(path: jpeg)
        #expect(theirs.psnr(against: source.picture) >= 30)

        // exiftool reads every item at its iloc offset (the Exif among them) and the altr group.
        if ExifTool.path != nil {
            let tree = try ExifTool.run(["-v3", file])
            let text = String(decoding: tree, as: UTF8.self)
            #expect(text.contains("'tmap' (\(source.toneMapItem.count) bytes)"), "\(text.prefix(4000))")
            #expect(text.contains("Tag 'grpl'") && text.contains("altr"), "\(text.prefix(4000))")
            #expect(try ExifTool.tags(["-EXIF:Make", file])["Make"] as? String == "Apple")
        }

        // darkroom's reader: the tmap's base is the primary, its data as given, its map as coded.
        let decoder = try HEIFDecoder(source: ChunkedSource(bytes, name: "ours.avif", maxChunk: 1 << 16))
        let toneMap = try #require(decoder.header.toneMap)
        #expect(toneMap.data == source.toneMapItem && toneMap.gainMapIDs.count == 1)
        let map = try decoder.decodeToneMapGainMap()
        #expect(map.width == source.map.width && map.height == source.map.height)
        // A grey map comes back grey; compared as RGB with its value in each channel.
        #expect(map.channels == (grey ? 1 : 3))
        let rgb = grey ? map.samples.flatMap { [$0, $0, $0] } : map.samples
        let ours = DecodedImage(width: map.width, height: map.height, pixels: rgb)
        var expected = source.map.samples
        if grey {
            for index in stride(from: 0, to: expected.count, by: 3) {
                (expected[index + 1], expected[index + 2]) = (expected[index], expected[index])
            }
        }
        let psnr = ours.psnr(against: DecodedImage(width: map.width, height: map.height, pixels: expected))
        #expect(psnr >= 35, "the map comes back \(psnr) dB from what was written")
    }

    @Test func theAltrGroupPrefersTheTmapAndNamesNoItemTwice() throws {
        let bytes = try Self.write(try Self.libavifPhoto(), grey: true)
        // grpl holds one altr: group_id, two entities, the tmap first and the primary second.
        let grpl = try #require(Self.find("grpl", in: bytes))
        let group = Array(bytes[grpl..<(grpl + 36)])
        #expect(Array(group[4..<8]) == Array("grpl".utf8) && Array(group[12..<16]) == Array("altr".utf8))
        let number = { (at: Int) in group[at..<(at + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        let decoder = try HEIFDecoder(source: ChunkedSource(bytes, name: "ours.avif", maxChunk: 1 << 16))
        let toneMap = try #require(decoder.header.toneMap)
        #expect(number(24) == 2 && number(28) == toneMap.id)
        #expect(number(20) > max(toneMap.id, toneMap.gainMapIDs[0], number(32)), "the group's ID is an item's")
    }

    @Test func badGainMapsAreRefusedBeforeLibheif() throws {
        let source = try Self.libavifPhoto()
        func refusal(_ change: (inout Source, inout HEIFWriteSettings) -> Void) -> HEIFError? {
            var (changed, settings) = (source, HEIFWriteSettings(quality: 60))
            change(&changed, &settings)
            do {
                _ = try Self.write(changed, grey: false, settings: settings)
                return nil
            } catch { return error }
        }
        #expect(refusal { _, settings in settings.codec = .hevc }?.code == .misuse)
        #expect(refusal { _, settings in settings.orientation = 6 }?.code == .misuse)
        #expect(refusal { source, _ in source.map.samples.removeLast() }?.code == .misuse)
        #expect(refusal { source, _ in source.toneMapItem = [] }?.code == .misuse)
        #expect(refusal { source, _ in source.map.width = 0 }?.code == .misuse)
    }

    @Test func aMapAddsItsOwnCoderToTheWorkingBytes() {
        let settings = HEIFWriteSettings(quality: 60)
        let grey = HEIFWriter.gainMapWorkingBytes(width: 720, height: 540, channels: 1, settings: settings)
        let colour = HEIFWriter.gainMapWorkingBytes(width: 720, height: 540, channels: 3, settings: settings)
        #expect(grey >= HEIFWriter.workingBytes(width: 720, height: 540, settings: settings))
        #expect(colour > grey)
    }

    /// The offset of the first box of `type` at any depth, found by its name (a test's shortcut).
    static func find(_ type: String, in bytes: [UInt8]) -> Int? {
        let name = Array(type.utf8)
        guard bytes.count >= 8 else { return nil }
        return (4..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == name }.map { $0 - 4 }
    }
}
