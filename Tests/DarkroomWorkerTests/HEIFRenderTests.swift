import ByteStreams
import DarkroomImaging
import DarkroomMetadata
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import JPEGTurbo
import LibHeif
import Testing

/// `darkroom render` of HEIF and AVIF originals: a photo stored turned, with `irot`/`imir` and
/// the matching EXIF Orientation (as phones write both), comes out upright, turned once; the
/// render says Orientation 1 and carries the original's EXIF and colour profile.
@Suite struct HEIFFileRenderTests {
    static let upright = PixelSize(width: 96, height: 64)

    /// The stored pixels a camera writes for `upright` under `orientation`: turned the other way,
    /// so that applying the orientation once shows `upright`.
    static func stored(for orientation: Orientation) -> (pixels: [UInt8], size: PixelSize) {
        let picture = HEIFFixtures.quadrants(width: upright.width, height: upright.height)
        let size = orientation.swapsAxes ? upright.transposed : upright
        let map = orientation.storedPixelMap(stored: size)
        var pixels = [UInt8](repeating: 0, count: picture.count)
        for y in 0..<upright.height {
            for x in 0..<upright.width {
                let s = map.stored(x: x, y: y)
                let from = (y * upright.width + x) * 3
                let to = (s.y * size.width + s.x) * 3
                pixels.replaceSubrange(to..<(to + 3), with: picture[from..<(from + 3)])
            }
        }
        return (pixels, size)
    }

    static func render(_ input: String, to output: String, data: String = #"{"operations":[]}"#) throws -> RenderResult
    {
        try FileRender(
            inputPath: input, outputPath: output, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
            data: Array(data.utf8), settings: RenderSettings()
        ).render().result
    }

    /// What the render's own EXIF says, read back the way an import reads it.
    static func exifOfRender(_ path: String) throws -> PhotoMetadata {
        let header = try JPEGDecoder(source: FileSource(path: path)).header
        return MetadataReader.read(app1Payload: try #require(header.exifPayload)).metadata
    }

    /// Every `irot` (0, 90, 180, 270) with and without `imir`, each with its EXIF Orientation: the
    /// render turns the coded rows by the file's own transforms, once (the EXIF orientation on
    /// top would turn them twice).
    @Test(
        arguments: Orientation.allCases.map { (HEIFEncoding.Codec.hevc, $0) } + [(.av1, .right), (.av1, .leftMirrored)])
    func turnedPhotosRenderUprightOnce(codec: HEIFEncoding.Codec, orientation: Orientation) throws {
        let folder = NSTemporaryDirectory() + "darkroom-heif-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (pixels, size) = Self.stored(for: orientation)
        let exif = HEIFFixtures.exif(
            orientation: orientation.rawValue, gps: true, date: "2024:05:06 07:08:09", offset: "+10:00")
        let bytes = try HEIFEncoder.encode(
            rgb: pixels, width: size.width, height: size.height,
            encoding: HEIFEncoding.input(codec: codec, quality: 92, orientation: orientation.rawValue, exif: exif))
        // A name that says JPEG: the content decides.
        try HEIFFixtures.write(bytes, to: folder + "/photo.jpg")
        let result = try Self.render(folder + "/photo.jpg", to: folder + "/out.jpg")
        #expect(result.outputSize == Self.upright && result.plan.geometry.orientation == orientation)
        let image = try DecodedImage(path: folder + "/out.jpg")
        #expect(HEIFFixtures.misplacedQuadrants(in: image).isEmpty, "orientation \(orientation.rawValue) via \(codec)")
        let metadata = try Self.exifOfRender(folder + "/out.jpg")
        #expect(metadata.orientation == 1 && metadata.latitude != nil && metadata.creationDate != nil)
    }

    /// The iPhone photo: `irot` 270 and EXIF 6 stored 4032×3024; upright it is 3024×4032 and
    /// matches what libheif's own heif-convert shows, block by block; turned twice (or not at
    /// all) it would be 4032×3024, turned the wrong way the blocks would not match.
    @Test func thePhonePhotoComesOutAsLibheifShowsIt() throws {
        let folder = NSTemporaryDirectory() + "darkroom-arrow-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.render(HEIFFixtures.arrow.path, to: folder + "/arrow.jpg")
        #expect(result.outputSize == PixelSize(width: 3024, height: 4032) && result.warnings.isEmpty)
        let image = try DecodedImage(path: folder + "/arrow.jpg")
        let reference = try Self.referenceBlocks()
        let ours = Self.lumaBlocks(image)
        let difference = Self.meanDifference(ours, reference)
        let turnedHalfway = Self.meanDifference(ours, Array(reference.reversed()))
        #expect(difference < 2, "mean luma difference per block \(difference)")
        #expect(
            turnedHalfway > 4 * max(difference, 0.5),
            "the comparison can tell a half turn: \(turnedHalfway) vs \(difference)")
        let header = try JPEGDecoder(source: FileSource(path: folder + "/arrow.jpg")).header
        #expect(HEIFFixtures.describesDisplayP3(try #require(header.iccProfile)), "the Display P3 profile is carried")
        let metadata = try Self.exifOfRender(folder + "/arrow.jpg")
        #expect(metadata.orientation == 1 && metadata.cameraModel == "iPhone 8 Plus")
    }

    /// Mean luma over 24 × 32 blocks of 126² pixels, as Tests/Fixtures/heif/README.md describes.
    static func lumaBlocks(_ image: DecodedImage) -> [Double] {
        let (columns, rows, block) = (24, 32, 126)
        var blocks: [Double] = []
        for row in 0..<rows {
            for column in 0..<columns {
                var total = 0
                for y in (row * block)..<((row + 1) * block) {
                    for x in (column * block)..<((column + 1) * block) {
                        let p = image.pixel(x, y)
                        total += Int(p[0]) * 299 + Int(p[1]) * 587 + Int(p[2]) * 114
                    }
                }
                blocks.append(Double(total) / 1000 / Double(block * block))
            }
        }
        return blocks
    }

    static func referenceBlocks() throws -> [Double] {
        let pgm = try Fixtures.bytes(of: HEIFFixtures.arrowReference)
        let header = Array("P5\n24 32\n255\n".utf8)
        try #require(pgm.starts(with: header) && pgm.count == header.count + 24 * 32)
        return pgm.dropFirst(header.count).map(Double.init)
    }

    static func meanDifference(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) } / Double(a.count)
    }
}
