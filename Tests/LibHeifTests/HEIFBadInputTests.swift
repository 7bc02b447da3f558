import ByteStreams
import DarkroomTestSupport
import Foundation
import LibHeif
import Testing

/// Damaged and hostile files: each a typed error that names the file, never a crash.
@Suite struct HEIFBadInputTests {
    static let name = "originals/ab/bad.heic"

    static func open(_ bytes: [UInt8], limits: HEIFLimits = HEIFLimits()) -> HEIFError? {
        do {
            _ = try HEIFDecoder(source: ChunkedSource(bytes, name: name, maxChunk: 4096), limits: limits)
            return nil
        } catch {
            return error
        }
    }

    /// Opens and decodes every row (a grid decodes its tiles as their rows are read).
    static func openAndDecode(_ bytes: [UInt8]) -> HEIFError? {
        do {
            let decoder = try HEIFDecoder(source: ChunkedSource(bytes, name: name, maxChunk: 4096))
            try decoder.start()
            let rowBytes = decoder.header.codedWidth * 3
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: rowBytes * 16, alignment: 16)
            defer { buffer.deallocate() }
            while try decoder.readRows(into: buffer, rowStride: rowBytes, rowCount: 16) > 0 {}
            try decoder.finish()
            return nil
        } catch {
            return error
        }
    }

    static var arrow: [UInt8] { get throws { try Fixtures.bytes(of: HEIFFixtures.arrow) } }

    /// Xiph's layered AV1 image whose `a1op` selects operating point 2 (layer 0, 360×182, its
    /// `ispe`): libheif decodes every layer (1436×730). Not damaged: a file libheif cannot read
    /// as it asks, refused as unsupported with that reason.
    @Test func aLayeredAV1ImageSelectingAnOperatingPointIsUnsupportedNotDamaged() throws {
        let file = Fixtures.root.appendingPathComponent("corpus/xiph/quebec_3layer_op2.avif")
        let error = try #require(Self.openAndDecode(try Fixtures.bytes(of: file)))
        #expect(error.code == .unsupported, "\(error)")
        #expect(error.message.contains("operating point") && error.message.contains("1436×730"), "\(error)")
        // Layers without a selection decode to the top one, as the file's ispe says.
        let tiger = Fixtures.root.appendingPathComponent("corpus/xiph/tiger_3layer_3res.avif")
        #expect(Self.openAndDecode(try Fixtures.bytes(of: tiger)) == nil)
    }

    /// libavif's 10-bit 4×3 grid of one 128×200 picture: libheif 1.19.7 will not crop its tiles
    /// ("only 8 bits per pixel"), so each tile's item is decoded whole; every tile lands where the
    /// grid puts it (all twelve the same picture) and the image decodes.
    @Test func aTenBitGridDecodesTileByTile() throws {
        let file = Fixtures.root.appendingPathComponent("corpus/libavif/color_grid_gainmap_different_grid.avif")
        let decoder = try HEIFDecoder(
            source: ChunkedSource(try Fixtures.bytes(of: file), name: Self.name, maxChunk: 4096))
        #expect(
            decoder.header.bitDepth == 10 && decoder.header.tiling?.columns == 4 && decoder.header.tiling?.rows == 3)
        // 10-bit 4:4:4 AV1 with alpha: three 16-bit planes and dav1d's pictures, which hold its alpha.
        #expect(decoder.header.fullChroma && decoder.header.hasAlpha && decoder.header.decodeBytesPerPixel == 28)
        let pixels = try HEIFDecoderTests.decodeAll(decoder)
        let (width, tileWidth, tileHeight) = (512, 128, 200)
        func tile(_ column: Int, _ row: Int) -> [UInt8] {
            (0..<tileHeight).flatMap { y in
                let start = ((row * tileHeight + y) * width + column * tileWidth) * 3
                return pixels[start..<(start + tileWidth * 3)]
            }
        }
        let first = tile(0, 0)
        #expect(Set(first).count > 32, "a picture, not a flat tile")
        for (column, row) in [(3, 0), (0, 2), (3, 2), (1, 1)] {
            let other = tile(column, row)
            let worst = zip(first, other).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 8, "tile \(column),\(row) differs from the first by up to \(worst)")
        }
    }

    /// libheif writes `mdat` last: losing the last bytes cuts the coded image, which libheif
    /// reads when it decodes it.
    @Test func aTruncatedFileIsDamaged() throws {
        let whole = try HEIFDecoderTests.encoded()
        let error = try #require(Self.openAndDecode(Array(whole.dropLast(8))))
        #expect(error.code == .damaged && error.object == Self.name && error.isDamagedData, "\(error)")
        #expect(error.description.hasPrefix("\(Self.name): ") && error.description.contains("the HEIF data is damaged"))
    }

    /// The phone photo cut in its tile data, and with a tile's `iloc` extent pointing past the
    /// end: libheif reads every item when it opens a file, so both fail before any decoding.
    @Test func aGridWhoseTilesAreMissingIsDamaged() throws {
        let arrow = try Self.arrow
        let cut = try #require(Self.open(Array(arrow.prefix(arrow.count / 2))))
        #expect(cut.code == .damaged && cut.libheifCode == 2 && cut.libheifSubcode == 100, "\(cut)")
        #expect(!cut.message.hasSuffix("\n"), "libheif's trailing newline is trimmed")
        let outside = ISOBMFFEdit.pointingLastExtentOutside(arrow)
        #expect(outside != arrow)
        let error = try #require(Self.open(outside))
        #expect(error.code == .damaged && error.message.contains("outside of file bounds"), "\(error)")
    }

    @Test func aFileCutInsideItsHeaderIsCorrupt() throws {
        let error = try #require(Self.open(Array(try Self.arrow.prefix(1000))))
        #expect(error.code == .corrupt && error.message.contains("meta"), "\(error)")
    }

    /// `pitm` names the Exif item: a HEIF with no image in it.
    @Test func aFileWithNoImageIsCorrupt() throws {
        let bytes = try HEIFDecoderTests.encoded(HEIFEncoding.input(exif: HEIFFixtures.exif(orientation: 1)))
        let exifItem = try #require(ISOBMFFEdit.itemID(ofType: "Exif", in: bytes))
        let error = try #require(Self.open(ISOBMFFEdit.settingPrimaryItem(bytes, to: exifItem)))
        #expect(error.code == .corrupt && error.message.contains("non-existing image"), "\(error)")
    }

    /// A header claiming 100 000 × 100 000 pixels is refused while libheif parses it, before
    /// anything that size is allocated.
    @Test func aHugeClaimedSizeIsRefusedAtOnce() throws {
        let bytes = ISOBMFFEdit.settingImageSize(try HEIFDecoderTests.encoded(), width: 100_000, height: 100_000)
        let error = try #require(Self.open(bytes))
        #expect(
            error.code == .tooLarge && error.message.contains("100000x100000") && error.object == Self.name, "\(error)")
        let smaller = try #require(Self.open(try HEIFDecoderTests.encoded(), limits: HEIFLimits(maxSide: 40)))
        #expect(smaller.code == .tooLarge)
    }

    /// An understated `ispe` cannot slip past the budget: here its `clap` (64×48 of the 64×64
    /// coded) no longer fits inside it, which the header refuses before any pixel is decoded.
    @Test func aSizeThatContradictsTheCodedImageIsCorrupt() throws {
        let bytes = ISOBMFFEdit.settingImageSize(try HEIFDecoderTests.encoded(), width: 32, height: 24)
        let error = try #require(Self.open(bytes))
        #expect(
            error.code == .corrupt && error.message.contains("clap") && error.message.contains("32×24"), "\(error)")
    }

    @Test func otherFilesAreNotHEIF() throws {
        let mp4 = HEIFFileTypeTests.ftyp("isom", ["isom", "mp41"])
        let error = try #require(Self.open(mp4))
        #expect(error.code == .unsupported && error.message.contains("'isom'"), "\(error)")
        let jpeg = try #require(Self.open(try Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg"))))
        #expect(jpeg.code == .unsupported && jpeg.message.contains("no 'ftyp' box"))
        #expect(Self.open([])?.code == .unsupported)
    }

    @Test func aFileLargerThanItMayHoldSaysHowLarge() throws {
        let bytes = try HEIFDecoderTests.encoded()
        let error = try #require(Self.open(bytes, limits: HEIFLimits(maxFileBytes: 100)))
        #expect(error.code == .tooLarge && error.fileBytes == bytes.count && error.libheifCode == 0)
        #expect(Self.open(bytes, limits: HEIFLimits(maxFileBytes: bytes.count)) == nil, "exactly the limit is allowed")
    }

    /// libheif's own limits are set, not left at its desktop defaults (a 100 MiB colour profile):
    /// a profile past `HEIFLimits.maxColorProfileBytes` is refused as libheif reads the file.
    @Test func aColorProfileLargerThanAnyRealOneIsRefused() throws {
        let huge = [UInt8](repeating: 0x41, count: HEIFLimits.maxColorProfileBytes + 1)
        let bytes = try HEIFDecoderTests.encoded(HEIFEncoding.input(iccProfile: huge))
        let error = try #require(Self.open(bytes), "a \(huge.count)-byte profile")
        #expect(error.libheifCode != 0, "\(error)")
        let fits = [UInt8](repeating: 0x41, count: 64 << 10)
        #expect(Self.open(try HEIFDecoderTests.encoded(HEIFEncoding.input(iccProfile: fits))) == nil)
    }

    @Test func aFailingStreamIsAnIOErrorWithItsCause() throws {
        let bytes = try HEIFDecoderTests.encoded()
        do {
            _ = try HEIFDecoder(source: ChunkedSource(bytes, name: Self.name, failAfter: 100))
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .io && error.cause?.code == .io && error.cause?.byteOffset == 100)
        }
    }

    @Test func rowsComeOnlyAfterTheDecode() throws {
        let decoder = try HEIFDecoder(source: ChunkedSource(try HEIFDecoderTests.encoded(), name: Self.name))
        var buffer = [UInt8](repeating: 0, count: 64 * 3)
        let error = #expect(throws: HEIFError.self) {
            _ = try buffer.withUnsafeMutableBytes { try decoder.readRows(into: $0, rowStride: 64 * 3, rowCount: 1) }
        }
        #expect(error?.code == .misuse)
        try decoder.start()
        #expect(throws: HEIFError.self) { try decoder.start() }
    }
}
