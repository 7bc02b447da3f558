import ByteStreams
import DarkroomTestSupport
import Foundation
import GainMaps
import JPEGTurbo
import Testing

@testable import DarkroomImaging

/// An original's HDR gain map carried through the render: the same geometry at the map's
/// resolution, written as a gain-map JPEG that exiftool reads, the same bytes whatever the budget,
/// and a standard-range render with a warning when the map cannot be carried.
@Suite struct GainMapRenderTests {
    static func bytes(_ path: String) throws -> [UInt8] {
        try Fixtures.bytes(of: Fixtures.root.appendingPathComponent(path))
    }

    struct Rendered {
        var result: RenderResult
        var output: [UInt8]
        var display: [UInt8]?
    }

    /// Renders `bytes` from memory; `keep` hands the renderer a second stream for the gain map.
    static func render(
        _ bytes: [UInt8], _ operations: [ImageOperation] = [], keep: Bool = true, budget: Int = 256 << 20,
        threads: Int = 1, display: Bool = false, orientation: Orientation = .up
    ) throws -> Rendered {
        let request = RenderRequest(
            operations: operations, limits: RenderLimits(memoryBudget: budget),
            spillDirectory: NSTemporaryDirectory(), threads: threads)
        let output = MemoryUpload()
        let displayOutput = display ? MemoryUpload(name: "display") : nil
        let reopen: (() throws -> any ByteSource)? = keep ? { ChunkedSource(bytes, name: "in", maxChunk: 65536) } : nil
        let renditions = displayOutput.map { [RenditionUpload(.display(longestSide: 256), to: $0)] } ?? []
        let result = try Renderer.render(
            request, from: ChunkedSource(bytes, name: "in", maxChunk: 65536), to: output, renditions: renditions,
            gainMapSource: reopen, orientation: orientation)
        return Rendered(result: result, output: try #require(output.committed), display: displayOutput?.committed)
    }

    /// The gain map a written file carries, as darkroom reads it back.
    static func map(of jpeg: [UInt8]) throws -> (SourceGainMap, GainMapSamples) {
        let found = try #require(try SourceGainMap.find(in: jpeg, objectName: "render"))
        return (found, try found.decode(from: jpeg, objectName: "render"))
    }

    // MARK: Without a map, today's bytes

    @Test(arguments: ["corpus/pillow/hopper.jpg", "corpus/pillow/sugarshack.mpo", "heif/arrow.heic"])
    func anOriginalWithoutAMapRendersAsToday(path: String) throws {
        let bytes = try Self.bytes(path)
        let operations: [ImageOperation] = [.crop(PixelRect(x: 4, y: 6, width: 40, height: 30)), .sepia(intensity: 1)]
        let kept = try Self.render(bytes, operations, display: true)
        let dropped = try Self.render(bytes, operations, keep: false, display: true)
        let same = kept.output == dropped.output && kept.display == dropped.display
        #expect(same)
        #expect(kept.result.hdr == nil && kept.result.warnings == dropped.result.warnings)
        #expect(kept.result.plan.memory.gainMap == 0)
    }

    // MARK: Written as a gain-map JPEG

    /// Ultra HDR in, a crop and an exposure: the output is a gain-map JPEG exiftool reads (MPF
    /// with two images, hdrgm on both), its map the crop at the map's half resolution, the
    /// metadata the original's.
    @Test func theOutputCarriesAMapExifToolReads() throws {
        try #require(ExifTool.path != nil, "exiftool is not installed")
        let path = "corpus/libvips/ultra-hdr.jpg"
        let bytes = try Self.bytes(path)
        let original = try #require(try SourceGainMap.find(in: bytes, objectName: path))
        let rendered = try Self.render(
            bytes, [.crop(PixelRect(x: 800, y: 400, width: 1200, height: 800)), .exposure(ev: 0.5)], display: true)
        // The bytes after the image are its map, carried: no warning about either.
        #expect(rendered.result.warnings.isEmpty, "\(rendered.result.warnings)")
        let hdr = try #require(rendered.result.hdr)
        // Its map is a quarter of the image per side.
        #expect(hdr.sourceFormat == "hdrgm" && hdr.mapSize == PixelSize(width: 300, height: 200))
        let primary = try ExifTool.tags(["-a", "-G1", "-"], input: rendered.output)
        #expect(primary["MPF0:NumberOfImages"] as? Int == 2)
        #expect(primary["XMP-hdrgm:Version"] as? Double == 1.0 || primary["XMP-hdrgm:Version"] as? String == "1.0")
        #expect(primary["File:ImageWidth"] as? Int == 1200 && primary["File:ImageHeight"] as? Int == 800)
        let mapBytes = try ExifTool.run(["-b", "-MPImage2", "-"], input: rendered.output)
        let mapTags = try ExifTool.tags(["-G1", "-"], input: mapBytes)
        #expect(mapTags["File:ImageWidth"] as? Int == 300 && mapTags["File:ImageHeight"] as? Int == 200)
        #expect(mapTags["File:ColorComponents"] as? Int == 1)
        let gainMapMax = try #require(mapTags["XMP-hdrgm:GainMapMax"] as? Double)
        #expect(abs(gainMapMax - original.metadata.gainMapMax.x) < 1e-4)
        // darkroom reads back what it wrote: the same metadata, through ISO 21496-1.
        let (written, samples) = try Self.map(of: rendered.output)
        #expect(abs(written.metadata.alternateHeadroom - original.metadata.alternateHeadroom) < 1e-4)
        #expect(samples.width == 300 && samples.channels == 1)
        // The display copy (longest side 256) carries its own, at the map's share of it.
        let display = try #require(rendered.display)
        let (_, displayMap) = try Self.map(of: display)
        #expect(displayMap.width == 64 && displayMap.height == 43)
    }

    /// A colour map stays a colour map.
    @Test func aThreeChannelMapStaysThreeChannels() throws {
        let rendered = try Self.render(
            try Self.bytes("gainmaps/seine_sdr_gainmap_srgb.jpg"),
            [.crop(PixelRect(x: 10, y: 20, width: 300, height: 200))])
        let (_, samples) = try Self.map(of: rendered.output)
        #expect(samples.channels == 3 && samples.width == 300 && samples.height == 200)
    }

    // MARK: ISO 21496-1 in HEIF and AVIF

    /// Samsung's HEIC (a grey map a quarter of the picture per side) and libavif's AVIF (a colour
    /// map the picture's size), cropped: the `tmap`'s map is carried like any other, written as a
    /// gain-map JPEG exiftool reads, its metadata the original's.
    @Test(arguments: [
        (
            ToneMapFixtures.samsung, PixelRect(x: 800, y: 400, width: 1000, height: 600),
            PixelSize(width: 250, height: 150), 1
        ),
        (ToneMapFixtures.avif, PixelRect(x: 10, y: 20, width: 300, height: 200), PixelSize(width: 300, height: 200), 3),
    ])
    func aTmapsMapIsCarried(file: URL, crop: PixelRect, mapSize: PixelSize, components: Int) throws {
        try #require(ExifTool.path != nil, "exiftool is not installed")
        let bytes = try Fixtures.bytes(of: file)
        let original = try #require(try SourceGainMap.find(in: bytes, objectName: file.lastPathComponent))
        let rendered = try Self.render(bytes, [.crop(crop)])
        #expect(!rendered.result.warnings.contains { $0.code == "gain_map.dropped" }, "\(rendered.result.warnings)")
        let hdr = try #require(rendered.result.hdr)
        #expect(hdr.sourceFormat == "iso_21496_1" && hdr.mapSize == mapSize)
        let primary = try ExifTool.tags(["-a", "-G1", "-"], input: rendered.output)
        #expect(primary["MPF0:NumberOfImages"] as? Int == 2)
        #expect(primary["XMP-hdrgm:Version"] as? Double == 1.0 || primary["XMP-hdrgm:Version"] as? String == "1.0")
        let mapBytes = try ExifTool.run(["-b", "-MPImage2", "-"], input: rendered.output)
        let mapTags = try ExifTool.tags(["-G1", "-"], input: mapBytes)
        #expect(
            mapTags["File:ImageWidth"] as? Int == mapSize.width && mapTags["File:ImageHeight"] as? Int == mapSize.height
        )
        #expect(mapTags["File:ColorComponents"] as? Int == components)
        let capacity = try #require(mapTags["XMP-hdrgm:HDRCapacityMax"] as? Double)
        #expect(abs(capacity - original.metadata.alternateHeadroom) < 1e-4)
        let (written, samples) = try Self.map(of: rendered.output)
        #expect(abs(written.metadata.gainMapMax.x - original.metadata.gainMapMax.x) < 1e-4)
        #expect(samples.channels == components)
    }

    /// The carried map lies on the picture: its samples follow the render's luminance over the
    /// same areas (correlation 0.71 for Samsung's, 0.64 for libavif's, as in the originals) and
    /// not the picture turned half way (0.00 and -0.59), also after a crop and a quarter turn.
    @Test(arguments: [ToneMapFixtures.samsung, ToneMapFixtures.avif], [false, true])
    func aTmapsMapLiesOnThePicture(file: URL, turned: Bool) throws {
        let bytes = try Fixtures.bytes(of: file)
        let header = try SourceHeader.read(from: FileSource(path: file.path))
        let size = header.storedSize
        let crop = PixelRect(
            x: size.width / 8, y: size.height / 8, width: size.width * 3 / 4, height: size.height * 3 / 4)
        let rendered = try Self.render(bytes, turned ? [.crop(crop), .orient(.right)] : [])
        let image = try DecodedImage(jpeg: rendered.output)
        let (_, map) = try Self.map(of: rendered.output)
        let aligned = luminanceCorrelation(image, map, halfTurned: false)
        let halfTurned = luminanceCorrelation(image, map, halfTurned: true)
        #expect(aligned > 0.55, "\(aligned)")
        #expect(halfTurned < 0.2, "\(halfTurned)")
    }

    /// `darkroom render --explain`: the gain map's own plan after the image's, or why it would be
    /// dropped; nothing of it with `--hdr drop`.
    @Test func theExplanationSaysWhatTheMapWouldCost() throws {
        func explain(_ bytes: [UInt8], keep: Bool = true) throws -> String {
            let request = RenderRequest(
                operations: [.crop(PixelRect(x: 8, y: 8, width: 160, height: 120))],
                limits: RenderLimits(memoryBudget: 256 << 20), spillDirectory: NSTemporaryDirectory())
            return try Renderer.explanation(
                request, input: ChunkedSource(bytes, name: "in", maxChunk: 65536),
                gainMapSource: keep ? { ChunkedSource(bytes, name: "in", maxChunk: 65536) } : nil
            ) { _ in .up }
        }
        let samsung = try Fixtures.bytes(of: ToneMapFixtures.samsung)
        let kept = try explain(samsung)
        #expect(kept.contains("gain map   iso_21496_1, 1000×462, one channel, rendered first"), "\(kept)")
        #expect(kept.contains("output     40×30"), "\(kept)")
        #expect(!(try explain(samsung, keep: false)).contains("gain map"))
        let dangling = try explain(ToneMapFixtures.bytes(.dangling))
        #expect(dangling.contains("gain map   dropped: its gain map could not be decoded"), "\(dangling)")
    }

    // MARK: The same bytes whatever the budget

    /// An iPhone HEIC (Apple's half-resolution auxiliary map), Samsung's HEIC (its `tmap`'s
    /// quarter-resolution map) and an Ultra HDR JPEG, turned, straightened and cropped: image, map
    /// and display copy are the same bytes at every budget and thread count, though the strips
    /// differ.
    @Test(arguments: [
        ("corpus/libvips/ultra-hdr.jpg", [6 << 20, 4 << 20]),
        ("corpus/osxphotos/IMG_3582.HEIC", [44 << 20, 41 << 20]),
        ("corpus/pillow_heif/aux_YCbCr.heic", [28 << 20, 26 << 20]),
    ])
    func theBytesDoNotDependOnTheBudget(path: String, budgets: [Int]) throws {
        let bytes = try Self.bytes(path)
        let operations: [ImageOperation] = [
            .orient(.right), .rotate(Rotation(degrees: 3, window: .largestUpright)),
            .crop(PixelRect(x: 100, y: 120, width: 1000, height: 700)),
            .colorControls(saturation: 1.2, brightness: 0, contrast: 1.1),
        ]
        let reference = try Self.render(bytes, operations, budget: 1 << 30, threads: 2, display: true)
        #expect(reference.result.hdr != nil)
        var strips: Set<Int> = [reference.result.plan.stripHeight]
        for budget in budgets {
            let rendered = try Self.render(bytes, operations, budget: budget, display: true)
            #expect(rendered.result.hdr != nil, "budget \(budget): \(rendered.result.warnings)")
            let same = rendered.output == reference.output && rendered.display == reference.display
            #expect(same, "budget \(budget): strips of \(rendered.result.plan.stripHeight)")
            #expect(rendered.result.plan.memory.total <= budget)
            strips.insert(rendered.result.plan.stripHeight)
        }
        #expect(strips.count > 1, "the budgets should change the strips")
    }

    // MARK: The map moves with the image

    /// A crop then a quarter turn, as an operation and as the orientation the render is given:
    /// the rendered map is the original map cropped and turned by hand (correlation near 1), not
    /// the crop turned the other way.
    @Test(arguments: [true, false])
    func aCropAndAQuarterTurnMoveTheMap(asOperation: Bool) throws {
        let path = "gainmaps/apple_gainmap_new.jpg"  // 384x512, its map 192x256
        let bytes = try Self.bytes(path)
        let (_, original) = try Self.map(of: bytes)
        let crop = PixelRect(x: 40, y: 60, width: 200, height: 300)
        let rendered =
            asOperation
            ? try Self.render(bytes, [.crop(crop), .orient(.right)])
            : try Self.render(
                bytes, [.crop(PixelRect(x: 512 - 60 - 300, y: 40, width: 300, height: 200))], orientation: .right)
        let (_, map) = try Self.map(of: rendered.output)
        #expect(map.width == 150 && map.height == 100)
        // By hand: the map's crop (half of the image's), turned a quarter clockwise.
        let cropped = (0..<150).map { y in (0..<100).map { x in original.codes[(30 + y) * 192 + 20 + x] } }
        var turned: [Double] = []
        var otherWay: [Double] = []
        for y in 0..<100 {
            for x in 0..<150 {
                turned.append(Double(cropped[149 - x][y]))
                otherWay.append(Double(cropped[x][99 - y]))
            }
        }
        let got = map.codes.map(Double.init)
        #expect(correlation(got, turned) > 0.97, "\(correlation(got, turned))")
        #expect(correlation(got, otherWay) < 0.8, "\(correlation(got, otherWay))")
    }

    /// HDR as a display would show it (the spec's reconstruction at full weight), from the
    /// original cropped by hand and from the render of that crop: the same within JPEG's losses;
    /// without the map the render would be far off.
    @Test func theRendersHDRIsTheOriginalsAfterTheSameGeometry() throws {
        let path = "gainmaps/apple_gainmap_new.jpg"
        let bytes = try Self.bytes(path)
        let (found, originalMap) = try Self.map(of: bytes)
        let base = try DecodedImage(jpeg: bytes)
        let crop = PixelRect(x: 64, y: 100, width: 256, height: 320)
        let rendered = try Self.render(bytes, [.crop(crop)])
        let (written, renderedMap) = try Self.map(of: rendered.output)
        let image = try DecodedImage(jpeg: rendered.output)
        var originalHDR: [Double] = []
        var renderedHDR: [Double] = []
        var standard: [Double] = []
        for y in 0..<crop.height {
            for x in 0..<crop.width {
                let source = base.pixel(crop.x + x, crop.y + y).map { SRGB.toLinear(Double($0) / 255) }
                let sample = originalMap.sample(
                    x: crop.x + x, y: crop.y + y, imageWidth: base.width, imageHeight: base.height)
                originalHDR.append(
                    found.metadata.apply(base: SIMD3(source[0], source[1], source[2]), sample: sample, weight: 1).y)
                let out = image.pixel(x, y).map { SRGB.toLinear(Double($0) / 255) }
                let outSample = renderedMap.sample(x: x, y: y, imageWidth: crop.width, imageHeight: crop.height)
                renderedHDR.append(
                    written.metadata.apply(base: SIMD3(out[0], out[1], out[2]), sample: outSample, weight: 1).y)
                standard.append(out[1])
            }
        }
        let error = meanLog2Distance(renderedHDR, originalHDR)
        #expect(error < 0.1, "\(error) stops")
        #expect(meanLog2Distance(standard, originalHDR) > 4 * error)
    }

    // MARK: Bad maps: a warning and standard range

    /// Hostile variants of real files: each renders as `--hdr drop` does, with a warning.
    @Test(arguments: HostileMap.allCases)
    func aBadMapIsDroppedWithAWarning(variant: HostileMap) throws {
        let bytes = try variant.bytes()
        let kept = try Self.render(
            bytes, [.crop(PixelRect(x: 8, y: 8, width: 160, height: 120))], budget: variant.budget)
        let dropped = try Self.render(
            bytes, [.crop(PixelRect(x: 8, y: 8, width: 160, height: 120))], keep: false, budget: variant.budget)
        let warning = try #require(kept.result.warnings.first { $0.code == "gain_map.dropped" })
        #expect(warning.message.contains(variant.reason), "\(warning)")
        #expect(kept.result.hdr == nil)
        let same = kept.output == dropped.output
        #expect(same)
        #expect(try SourceGainMap.find(in: kept.output, objectName: "render") == nil)
    }
}

/// Real gain-map files made hostile.
enum HostileMap: String, CaseIterable, CustomTestStringConvertible {
    case truncated, mpfOffset, gammaZero, wrongShape, absurdSize, noHeadroom, tooLargeForTheBudget
    /// An AVIF whose `tmap` names a gain map the file does not have.
    case tmapDangling
    /// libavif's HDR-base AVIF (PQ): its map would not apply to a render that cannot describe PQ.
    case hdrBase
    /// Samsung's HEIC whose `tmap` turns its HDR picture a quarter on its own.
    case tmapTurned
    /// An AVIF whose `tmap` item's data lie past the end of the file.
    case tmapDataMissing

    var testDescription: String { rawValue }

    /// Too small to hold the 1.2 MB file three times over; enough for its image.
    var budget: Int { self == .tooLargeForTheBudget ? 3 << 20 : 256 << 20 }

    /// What the warning's reason names.
    var reason: String {
        switch self {
        case .truncated, .mpfOffset, .gammaZero, .noHeadroom: "unreadable"
        case .wrongShape: "shape"
        case .absurdSize: "absurd size"
        case .tooLargeForTheBudget: "whole file"
        case .tmapDangling: "not an image in the file"
        case .hdrBase: "coded for HDR displays (PQ)"
        case .tmapTurned: "its own irot, imir or clap"
        case .tmapDataMissing: "the tmap item's data could not be read"
        }
    }

    func bytes() throws -> [UInt8] {
        let ultraHDR = try GainMapRenderTests.bytes("corpus/libvips/ultra-hdr.jpg")
        switch self {
        case .truncated:
            // The primary is whole; the map is cut off half way.
            return Array(ultraHDR.prefix(ultraHDR.count - 15_000))
        case .mpfOffset:
            var bytes = ultraHDR
            let found = try #require(try GainMapJPEG.locate(in: bytes))
            let offset = UInt32(found.range.lowerBound - found.mpfHeaderOffset)
            let patterns = [offset.bigEndian, offset.littleEndian].map { value in
                withUnsafeBytes(of: value) { Array($0) }
            }
            let at = try #require(
                (found.mpfHeaderOffset..<(found.mpfHeaderOffset + 200)).first { index in
                    patterns.contains { Array(bytes[index..<(index + 4)]) == $0 }
                })
            bytes[at + 1] ^= 0x40
            return bytes
        case .gammaZero:
            var bytes = ultraHDR
            let needle = Array(#"hdrgm:Gamma="1""#.utf8)
            let at = try #require(
                (0..<(bytes.count - needle.count)).last { Array(bytes[$0..<($0 + needle.count)]) == needle })
            bytes[at + needle.count - 2] = UInt8(ascii: "0")
            return bytes
        case .wrongShape, .absurdSize:
            let apple = try GainMapRenderTests.bytes("gainmaps/apple_gainmap_new.jpg")  // 384x512
            let found = try #require(try SourceGainMap.find(in: apple, objectName: "apple"))
            let primary = try GainMapRenderTests.render(apple, keep: false).output
            let size = self == .wrongShape ? PixelSize(width: 192, height: 192) : PixelSize(width: 800, height: 1066)
            return try GainMapJPEGWriter.join(primary: primary, gainMap: greyJPEG(size), metadata: found.metadata)
        case .noHeadroom:
            // pillow_heif's iPhone HEIC: MakerNote tag 33 without 48, no XMP headroom.
            return try GainMapRenderTests.bytes("corpus/pillow_heif/pug.heic")
        case .tooLargeForTheBudget:
            return ultraHDR
        case .tmapDangling:
            return try ToneMapFixtures.bytes(.dangling)
        case .hdrBase:
            return try Fixtures.bytes(of: ToneMapFixtures.hdrBaseAVIF)
        case .tmapTurned:
            return try ToneMapFixtures.bytes(.tmapTurned)
        case .tmapDataMissing:
            return try ToneMapFixtures.bytes(.dataOutsideTheFile)
        }
    }

    private func greyJPEG(_ size: PixelSize) throws -> [UInt8] {
        let sink = MemoryUpload()
        let encoder = try JPEGEncoder(sink: sink)
        var encoding = JPEGEncoding(quality: 90)
        encoding.color = .grey
        try encoder.start(width: size.width, height: size.height, encoding: encoding)
        let row = (0..<size.width).map { UInt8(truncatingIfNeeded: $0) }
        for _ in 0..<size.height {
            try row.withUnsafeBytes { try encoder.writeRows(from: $0, rowStride: size.width, rowCount: 1) }
        }
        try encoder.finish()
        return sink.bytes
    }
}

/// The correlation of a map's first channel with the mean green of the image over each map
/// pixel's area, or with the map turned half way.
private func luminanceCorrelation(_ image: DecodedImage, _ map: GainMapSamples, halfTurned: Bool) -> Double {
    var sums = [Double](repeating: 0, count: map.width * map.height)
    var counts = [Double](repeating: 0, count: map.width * map.height)
    for y in 0..<image.height {
        let mapY = y * map.height / image.height
        for x in 0..<image.width {
            let index = mapY * map.width + x * map.width / image.width
            sums[index] += Double(image.pixels[(y * image.width + x) * 3 + 1])
            counts[index] += 1
        }
    }
    let luminance = zip(sums, counts).map { $0 / max($1, 1) }
    let codes = stride(from: 0, to: map.codes.count, by: map.channels).map { Double(map.codes[$0]) }
    return correlation(luminance, halfTurned ? codes.reversed() : codes)
}

private func correlation(_ a: [Double], _ b: [Double]) -> Double {
    let meanA = a.reduce(0, +) / Double(a.count)
    let meanB = b.reduce(0, +) / Double(b.count)
    var (ab, aa, bb) = (0.0, 0.0, 0.0)
    for index in a.indices {
        let (x, y) = (a[index] - meanA, b[index] - meanB)
        ab += x * y
        aa += x * x
        bb += y * y
    }
    return ab / (aa * bb).squareRoot()
}

/// The mean distance in stops between two lists of linear values (each kept above 1/1024).
private func meanLog2Distance(_ a: [Double], _ b: [Double]) -> Double {
    zip(a, b).reduce(0) { $0 + abs(log2(max($1.0, 1.0 / 1024) / max($1.1, 1.0 / 1024))) } / Double(a.count)
}
