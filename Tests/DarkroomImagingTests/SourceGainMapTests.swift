import ByteStreams
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import GainMaps
import JPEGTurbo
import Testing

/// Gain maps found and decoded through DarkroomImaging: JPEGs through their MPF index, HEICs
/// through libheif's auxiliary images and `tmap` item; the numbers against exiftool's reading.
@Suite struct SourceGainMapTests {
    static func bytes(_ path: String) throws -> [UInt8] {
        try Fixtures.bytes(of: Fixtures.root.appendingPathComponent(path))
    }

    @Test(arguments: [
        ("gainmaps/seine_sdr_gainmap_srgb.jpg", GainMapKind.adobeXMP, 400, 300, 3),
        ("gainmaps/paris_exif_xmp_gainmap_littleendian.jpg", .adobeXMP, 512, 384, 1),
        ("gainmaps/apple_gainmap_new.jpg", .apple, 192, 256, 1),
        ("gainmaps/apple_gainmap_old.jpg", .apple, 192, 256, 1),
        ("corpus/libvips/ultra-hdr.jpg", .adobeXMP, 960, 540, 1),
    ])
    func jpegGainMapsDecode(path: String, kind: GainMapKind, width: Int, height: Int, channels: Int) throws {
        let bytes = try Self.bytes(path)
        let found = try #require(try SourceGainMap.find(in: bytes, objectName: path))
        #expect(found.kind == kind)
        #expect(found.size == PixelSize(width: width, height: height))
        let samples = try found.decode(from: bytes, objectName: path)
        #expect(samples.width == width && samples.height == height && samples.channels == channels)
        // A real map brightens some of the picture and not all of it alike.
        #expect(Set(samples.codes).count > 16)
    }

    /// iPhone 15 Pro HEIC: Apple's gain map at half resolution, its XMP headroom 2.786103
    /// (exiftool), which Apple's formula gives from the MakerNote too (33: 1.01, 48: 2.7218).
    @Test func iPhoneHEICGainMap() throws {
        let path = "corpus/osxphotos/IMG_3582.HEIC"
        let bytes = try Self.bytes(path)
        let found = try #require(try SourceGainMap.find(in: bytes, objectName: path))
        #expect(found.kind == .apple)
        #expect(abs(found.metadata.alternateHeadroom - log2(2.786103)) < 1e-6)
        let stops = AppleHeadroom.stops(AppleHeadroom.MakerNoteTags(headroom: 1.00999999, gain: 2.721779107))
        #expect(abs(found.metadata.alternateHeadroom - stops) < 1e-3)
        let size = try #require(found.size)
        let header = try SourceHeader.read(from: FileSource(path: Fixtures.root.appendingPathComponent(path).path))
        #expect(size.width * 2 == header.storedSize.width || size.height * 2 == header.storedSize.height)
        let samples = try found.decode(from: bytes, objectName: path)
        #expect(samples.width == size.width && samples.height == size.height && samples.channels == 1)
        #expect(Set(samples.codes).count > 16)
    }

    /// pillow_heif's iPhone 13 Pro HEIC: an Apple gain map whose headroom is in neither place
    /// Apple documents (no XMP headroom, MakerNote tag 33 without 48): refused, typed.
    @Test func appleGainMapWithoutHeadroomIsInconsistent() throws {
        let path = "corpus/pillow_heif/pug.heic"
        do {
            _ = try SourceGainMap.find(in: Self.bytes(path), objectName: path)
            Issue.record("found a gain map with no headroom")
        } catch let error as GainMapError {
            #expect(error.code == .inconsistent && error.structure == .appleMakerNote, "\(error)")
        }
    }

    /// Samsung's ISO 21496-1 HEIC: the `tmap` item's metadata, against the hdrgm XMP exiftool
    /// reads from the same file (GainMapMin 0, GainMapMax 2.3), and its map: a quarter of the
    /// picture per side, coded YCbCr with neutral chroma, so one channel.
    @Test func isoToneMapItem() throws {
        let path = "corpus/pillow_heif/aux_YCbCr.heic"
        let bytes = try Self.bytes(path)
        let found = try #require(try SourceGainMap.find(in: bytes, objectName: path))
        #expect(found.kind == .iso21496 && found.size == nil)
        #expect(found.metadata.gainMapMin == .zero)
        #expect((0..<3).allSatisfy { abs(found.metadata.gainMapMax[$0] - 2.3) < 1e-6 })
        let samples = try found.decode(from: bytes, objectName: path)
        #expect(samples.width == 1000 && samples.height == 462 && samples.channels == 1)
        #expect(Set(samples.codes).count > 16)
    }

    /// libavif's AVIFs: an SDR base whose three-channel map goes up 1.3 stops, and the same
    /// photo as an HDR base (PQ) whose map goes down to SDR (base headroom above the alternate's).
    @Test func avifToneMaps() throws {
        let sdr = try Fixtures.bytes(of: ToneMapFixtures.avif)
        let found = try #require(try SourceGainMap.find(in: sdr, objectName: "sdr.avif"))
        #expect(found.kind == .iso21496 && found.metadata.isMultichannel && !found.metadata.baseIsHDR)
        #expect(found.metadata.baseHeadroom == 0 && abs(found.metadata.alternateHeadroom - 1.3) < 1e-9)
        let samples = try found.decode(from: sdr, objectName: "sdr.avif")
        #expect(samples.width == 400 && samples.height == 300 && samples.channels == 3)
        let hdr = try Fixtures.bytes(of: ToneMapFixtures.hdrBaseAVIF)
        let down = try #require(try SourceGainMap.find(in: hdr, objectName: "hdr.avif"))
        #expect(down.metadata.baseIsHDR && abs(down.metadata.baseHeadroom - 1.3) < 1e-9)
        #expect(try down.decode(from: hdr, objectName: "hdr.avif").width == 400)
    }

    /// A `tmap` whose map cannot be located reads its metadata and fails to decode, typed.
    @Test func aDanglingTmapMapIsACodecError() throws {
        let bytes = try ToneMapFixtures.bytes(.dangling)
        let found = try #require(try SourceGainMap.find(in: bytes, objectName: "dangling.avif"))
        do {
            _ = try found.decode(from: bytes, objectName: "dangling.avif")
            Issue.record("decoded a map that is not in the file")
        } catch let error as CodecError {
            #expect(error.code == .corrupt, "\(error)")
        }
    }

    @Test func photosWithoutGainMaps() throws {
        for path in ["corpus/pillow/hopper.jpg", "corpus/pillow/sugarshack.mpo", "heif/arrow.heic"] {
            #expect(try SourceGainMap.find(in: Self.bytes(path), objectName: path) == nil, "\(path)")
        }
    }

    /// HDR from an original: the Apple JPEG's primary (sRGB, linearised) and its gain map at full
    /// weight. Where the map is 0 the HDR pixel is the SDR one; nothing exceeds the headroom.
    @Test func reconstructHDRFromARealFile() throws {
        let path = "gainmaps/apple_gainmap_new.jpg"
        let bytes = try Self.bytes(path)
        let found = try #require(try SourceGainMap.find(in: bytes, objectName: path))
        let map = try found.decode(from: bytes, objectName: path)
        let (width, height, rgb) = try decodeRGB(Fixtures.root.appendingPathComponent(path).path)
        let base = rgb.map { SRGB.toLinear(Double($0) / 255) }
        let hdr = found.metadata.reconstruct(base: base, width: width, height: height, map: map, weight: 1)
        var brightened = 0
        for index in stride(from: 0, to: base.count, by: 3) {
            let pixel = index / 3
            let sample = map.sample(x: pixel % width, y: pixel / width, imageWidth: width, imageHeight: height)
            let ratio = hdr[index] / max(base[index], 1e-9)
            if sample.x == 0 { #expect(hdr[index] == base[index]) }
            #expect(ratio <= exp2(found.metadata.alternateHeadroom) + 1e-9)
            if ratio > 1.5 { brightened += 1 }
        }
        #expect(brightened > 0)
    }

    /// The primary image as 8-bit RGB, whole.
    private func decodeRGB(_ path: String) throws -> (Int, Int, [UInt8]) {
        let decoder = try JPEGDecoder(source: FileSource(path: path))
        let size = try decoder.start()
        var rgb = [UInt8](repeating: 0, count: size.width * size.height * 3)
        var row = 0
        try rgb.withUnsafeMutableBytes { buffer in
            while row < size.height {
                let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[(row * size.width * 3)...])
                row += try decoder.readRows(into: rest, rowStride: size.width * 3, rowCount: size.height - row)
            }
        }
        return (size.width, size.height, rgb)
    }
}
