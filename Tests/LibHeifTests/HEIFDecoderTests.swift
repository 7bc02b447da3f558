import ByteStreams
import DarkroomTestSupport
import Foundation
import LibHeif
import Testing

@Suite struct HEIFDecoderTests {
    static let width = 64, height = 48

    static func encoded(_ encoding: HEIFEncoding = HEIFEncoding.input(), width: Int = width, height: Int = height)
        throws
        -> [UInt8]
    {
        try HEIFEncoder.encode(
            rgb: HEIFFixtures.quadrants(width: width, height: height), width: width, height: height, encoding: encoding)
    }

    /// Decodes every coded row, in chunks of 7 rows into a padded buffer, and cuts out the
    /// picture the file's `clap` names (the encoder pads 48 rows to 64).
    static func decodeAll(_ decoder: HEIFDecoder) throws -> [UInt8] {
        try decoder.start()
        let header = decoder.header
        let stride = header.codedWidth * 3 + 5
        var rows = [UInt8](repeating: 0, count: stride * header.codedHeight)
        var done = 0
        while done < header.codedHeight {
            let got = try rows.withUnsafeMutableBytes { buffer in
                try decoder.readRows(
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[(done * stride)...]), rowStride: stride,
                    rowCount: 7)
            }
            #expect(got > 0)
            done += got
        }
        #expect(try rows.withUnsafeMutableBytes { try decoder.readRows(into: $0, rowStride: stride, rowCount: 1) } == 0)
        try decoder.finish()
        var left = 0
        var top = 0
        for transform in header.transforms {
            guard case .crop(let x, let y, _, _) = transform else {
                Issue.record("decodeAll cuts out a clap only, not \(transform)")
                continue
            }
            left += x
            top += y
        }
        var picture: [UInt8] = []
        for row in top..<(top + header.height) {
            let start = row * stride + left * 3
            picture += rows[start..<(start + header.width * 3)]
        }
        return picture
    }

    static func expectQuadrants(_ pixels: [UInt8], width: Int, height: Int, tolerance: Int = 14) {
        let misplaced = HEIFFixtures.misplacedQuadrants(
            in: DecodedImage(width: width, height: height, pixels: pixels), tolerance: tolerance)
        #expect(misplaced.isEmpty, "\(misplaced)")
    }

    @Test(arguments: [HEIFEncoding.Codec.hevc, .av1])
    func decodesWhatTheEncoderWrote(codec: HEIFEncoding.Codec) throws {
        let bytes = try Self.encoded(HEIFEncoding.input(codec: codec))
        let decoder = try HEIFDecoder(source: ChunkedSource(bytes, name: "originals/aa/x.heic", maxChunk: 1000))
        let header = decoder.header
        #expect(header.fileType.kind == (codec == .hevc ? .heic : .avif))
        #expect(header.width == Self.width && header.height == Self.height && header.bitDepth == 8 && !header.hasAlpha)
        #expect(header.fileBytes == bytes.count && header.exifPayload == nil && header.iccProfile == nil)
        #expect(header.decodeBytesPerPixel == (codec == .hevc ? 6 : 8) && !header.fullChroma)
        Self.expectQuadrants(try Self.decodeAll(decoder), width: Self.width, height: Self.height)
    }

    /// The handle's size is the displayed one; the decoder delivers the coded rows (`ispe`, here
    /// 64×64 for a 64×48 picture) and says how they turn: the encoder's `clap`, then the `irot`.
    @Test func aQuarterTurnIsATransformOfTheCodedRows() throws {
        let decoder = try HEIFDecoder(source: ChunkedSource(try Self.encoded(HEIFEncoding.input(orientation: 6))))
        let header = decoder.header
        #expect(header.width == Self.height && header.height == Self.width)
        #expect(header.codedWidth == 64 && header.codedHeight == 64 && header.tiling == nil)
        #expect(
            header.transforms == [
                .crop(left: 0, top: 0, right: 0, bottom: 16), .rotation(counterClockwiseDegrees: 270),
            ],
            "\(header.transforms)")
        try decoder.start()
        #expect(decoder.outputHeight == header.codedHeight)
    }

    /// libheif writes the offset before the TIFF header (6 after an `Exif\0\0`, 0 for bare
    /// TIFF); either way the header hands over the same APP1 payload.
    @Test(arguments: [true, false])
    func exifComesOutAsAnAPP1Payload(withExifHeader: Bool) throws {
        let payload = HEIFFixtures.exif(orientation: 6, gps: true)
        let given = withExifHeader ? payload : Array(payload.dropFirst(6))
        let decoder = try HEIFDecoder(source: ChunkedSource(try Self.encoded(HEIFEncoding.input(exif: given))))
        #expect(decoder.header.exifPayload == payload)
    }

    @Test func colorDescriptionsAreRead() throws {
        let profile = Array("not checked by libheif: any bytes stand for an ICC profile here".utf8)
        let withICC = try HEIFDecoder(source: ChunkedSource(try Self.encoded(HEIFEncoding.input(iccProfile: profile))))
        #expect(withICC.header.iccProfile == profile && withICC.header.nclx == nil)
        let p3 = try HEIFDecoder(source: ChunkedSource(try Self.encoded(HEIFEncoding.input(nclx: .displayP3))))
        #expect(p3.header.nclx == .displayP3 && p3.header.iccProfile == nil)
    }

    /// The nclx matrix and range the pixels were coded with are the ones they decode with:
    /// limited-range BT.709 comes back as the same colours as full-range BT.601.
    @Test(arguments: [
        HEIFColorDescription(primaries: 1, transfer: 13, matrix: 1, fullRange: false),
        HEIFColorDescription(primaries: 1, transfer: 13, matrix: 5, fullRange: true),
    ])
    func nclxCodingIsUndone(nclx: HEIFColorDescription) throws {
        let decoder = try HEIFDecoder(
            source: ChunkedSource(try Self.encoded(HEIFEncoding.input(quality: 95, chroma: .yuv444, nclx: nclx))))
        #expect(decoder.header.nclx == nclx)
        Self.expectQuadrants(try Self.decodeAll(decoder), width: Self.width, height: Self.height, tolerance: 6)
    }

    @Test func thePhonePhotoDescribesItself() throws {
        let decoder = try HEIFDecoder(source: FileSource(path: HEIFFixtures.arrow.path))
        let header = decoder.header
        #expect(header.fileType.kind == .heic && header.fileType.majorBrand == "heic")
        #expect(
            header.width == 3024 && header.height == 4032 && header.codedWidth == 4032 && header.codedHeight == 3024)
        let icc = try #require(header.iccProfile)
        #expect(icc.count == 548 && icc[36..<40].elementsEqual("acsp".utf8))
        #expect(HEIFFixtures.describesDisplayP3(icc))
        let exif = try #require(header.exifPayload)
        #expect(exif.starts(with: HEIFExifBlock.app1Header + Array("MM".utf8)))
        #expect(header.decodeBytesPerPixel == 6 && header.warnings.isEmpty)
    }
}

@Suite struct HEIFExifBlockTests {
    static let tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0]

    @Test(arguments: [0, 6, 10])
    func theOffsetLeadsToTheTIFFHeader(offset: Int) {
        let item = [0, 0, 0, UInt8(offset)] + [UInt8](repeating: 0xAA, count: offset) + Self.tiff
        let result = HEIFExifBlock.app1Payload(fromItem: item)
        #expect(result.payload == HEIFExifBlock.app1Header + Self.tiff && result.problem == nil)
    }

    @Test func aWrongOffsetFallsBackToTheFirstTIFFHeader() {
        let item: [UInt8] = [0, 0, 0, 40] + Array("Exif".utf8) + [0, 0] + Self.tiff
        #expect(HEIFExifBlock.app1Payload(fromItem: item).payload == HEIFExifBlock.app1Header + Self.tiff)
    }

    @Test func withoutATIFFHeaderThereIsNoPayload() {
        let none = HEIFExifBlock.app1Payload(fromItem: [0, 0, 0, 0] + [UInt8](repeating: 7, count: 30))
        #expect(none.payload == nil && none.problem?.contains("no TIFF header") == true)
        let short = HEIFExifBlock.app1Payload(fromItem: [0, 0, 0])
        #expect(short.payload == nil && short.problem?.contains("3 bytes") == true)
    }
}
