import ByteStreams
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import LibHeif
import Testing

@testable import DarkroomImaging

/// HEIF and AVIF originals through the same strips as JPEGs: told apart by content, decoded
/// whole by libheif (priced up front), upright as decoded, colours described as the original's.
@Suite struct HEIFRenderTests {
    static let sepia: [ImageOperation] = [.sepia(intensity: 0.8), .vignette(intensity: 1, radius: 1)]

    static func request(_ operations: [ImageOperation] = [], budget: Int = 256 << 20, threads: Int = 1) -> RenderRequest
    {
        RenderRequest(
            operations: operations, limits: RenderLimits(memoryBudget: budget), spillDirectory: NSTemporaryDirectory(),
            threads: threads)
    }

    static func heic(_ encoding: HEIFEncoding = HEIFEncoding.input(), width: Int = 96, height: Int = 64) throws
        -> [UInt8]
    {
        try HEIFEncoder.encode(
            rgb: HEIFFixtures.quadrants(width: width, height: height), width: width, height: height, encoding: encoding)
    }

    /// Renders from memory; the JPEG it committed, decoded.
    static func render(_ bytes: [UInt8], _ request: RenderRequest = request(), name: String = "in.heic")
        throws -> (result: RenderResult, output: [UInt8], image: DecodedImage)
    {
        let output = MemoryUpload()
        let result = try Renderer.render(
            request, from: ChunkedSource(bytes, name: name, maxChunk: 65536), to: output, orientation: .up)
        let jpeg = try #require(output.committed)
        return (result, jpeg, try DecodedImage(jpeg: jpeg))
    }

    /// darkroom's own mistake in driving a decoder names the input's format (a HEIF's is
    /// `heif_misuse`, not `jpeg_misuse`).
    @Test func aMisuseNamesTheDecodersFormat() throws {
        let heif = try SourceDecoder.open(
            ChunkedSource(try Self.heic(), name: "in.heic", maxChunk: 65536),
            heifLimits: HEIFLimits(RenderLimits(), threads: 1))
        let jpeg = try SourceDecoder.open(
            FileSource(path: Fixtures.exifSample("Canon_40D.jpg").path),
            heifLimits: HEIFLimits(RenderLimits(), threads: 1))
        for (decoder, format) in [(heif, CodecError.Format.heif), (jpeg, .jpeg)] {
            #expect {
                try wrap { throw decoder.misuse("the decoder delivers 1×1", objectName: "in") }
            } throws: { error in
                let codec = (error as? RenderError)?.codecError
                return codec?.format == format && codec?.code == .misuse
            }
        }
    }

    @Test(arguments: [HEIFEncoding.Codec.hevc, .av1])
    func aHEIFRendersThroughTheStrips(codec: HEIFEncoding.Codec) throws {
        let rendered = try Self.render(try Self.heic(HEIFEncoding.input(codec: codec)))
        #expect(rendered.result.outputSize == PixelSize(width: 96, height: 64))
        #expect(rendered.result.plan.inputFormat == (codec == .hevc ? "HEIC" : "AVIF"))
        #expect(HEIFFixtures.misplacedQuadrants(in: rendered.image).isEmpty)
        let decode = try #require(rendered.result.plan.heifDecode)
        #expect(decode.bytesPerPixel == (codec == .hevc ? 6 : 8) && decode.size == PixelSize(width: 96, height: 64))
        #expect(decode.tile == nil)
        #expect(rendered.result.plan.memory.decoder == decode.total)
    }

    /// Whatever the threads and the strip height, the same bytes (as for JPEG inputs).
    @Test func theBytesDoNotDependOnThreadsOrBudget() throws {
        let bytes = try Self.heic(width: 640, height: 480)
        let reference = try Self.render(bytes, Self.request(Self.sepia)).output
        for (budget, threads) in [(24 << 20, 1), (256 << 20, 2), (20 << 20, 2)] {
            let rendered = try Self.render(bytes, Self.request(Self.sepia, budget: budget, threads: threads))
            #expect(
                rendered.output == reference,
                "budget \(budget), threads \(threads): strips of \(rendered.result.plan.stripHeight)")
        }
    }

    /// The decode is priced before it happens: a budget that cannot hold it fails at once,
    /// saying what it needs, and nothing is written.
    @Test func aBudgetThatCannotHoldTheDecodeIsRefusedUpFront() throws {
        let bytes = try Self.heic(width: 2000, height: 1500)
        let output = MemoryUpload()
        #expect {
            _ = try Renderer.render(
                Self.request(budget: 16 << 20), from: ChunkedSource(bytes, name: "big.heic"), to: output,
                orientation: .up)
        } throws: { error in
            guard let error = error as? RenderError, error.code == .memoryBudgetExceeded,
                let needed = error.bytesNeeded, let reason = error.operation
            else { return false }
            return needed > 2000 * 1500 * 6 && error.memoryBudget == 16 << 20 && reason.contains("HEIC")
                && reason.contains("whole")
        }
        #expect(output.committed == nil && output.aborted)
    }

    /// A file larger than the budget is refused while it is read, before libheif sees it.
    @Test func aFileLargerThanTheBudgetIsTheBudgetsRefusal() throws {
        let bytes = try Self.heic(
            HEIFEncoding.input(quality: 100, lossless: true, chroma: .yuv444), width: 600, height: 600)
        #expect {
            _ = try Renderer.render(
                Self.request(budget: bytes.count / 2), from: ChunkedSource(bytes), to: MemoryUpload(), orientation: .up)
        } throws: { error in
            guard let error = error as? RenderError, error.code == .memoryBudgetExceeded else { return false }
            return error.bytesNeeded == 2 * bytes.count && error.operation?.contains("HEIF file in memory") == true
        }
    }

    /// The planner's price for a HEIF: bytes per pixel by depth, alpha and codec, the file
    /// twice and the codecs' allowance; a 48 MP iPhone photo does not fit a worker slot's
    /// 128 MiB and is refused with what it needs.
    @Test func theDecodeIsPricedByDepthAlphaAndCodec() throws {
        let heic = HEIFFileType(prefix: [0, 0, 0, 16] + Array("ftypheic".utf8) + [0, 0, 0, 0])!
        let avif = HEIFFileType(prefix: [0, 0, 0, 16] + Array("ftypavif".utf8) + [0, 0, 0, 0])!
        func header(_ type: HEIFFileType, _ width: Int, _ height: Int, alpha: Bool = false, depth: Int = 8)
            -> HEIFHeader
        {
            HEIFHeader(
                fileType: type, width: width, height: height, codedWidth: width, codedHeight: height, hasAlpha: alpha,
                bitDepth: depth, fileBytes: 3_000_000)
        }
        let cases = [
            (header(heic, 4032, 3024), 6), (header(avif, 4032, 3024), 8), (header(heic, 4032, 3024, alpha: true), 8),
            (header(avif, 4032, 3024, alpha: true), 11), (header(heic, 4032, 3024, depth: 10), 12),
            (header(heic, 4032, 3024, alpha: true, depth: 10), 14), (header(avif, 4032, 3024, depth: 10), 14),
            (header(avif, 4032, 3024, alpha: true, depth: 10), 14),
        ]
        for (header, bytesPerPixel) in cases {
            #expect(
                RenderPlanner.decoderBytes(.heif(header)) == 4032 * 3024 * bytesPerPixel + 6_000_000
                    + HEIFDecode.codecBytes)
        }
        // An image sequence's header keeps a copy of its movie box, which the plan holds too.
        var sequence = header(avif, 4032, 3024)
        sequence.movieBox = [UInt8](repeating: 0, count: 50_000)
        #expect(
            RenderPlanner.decoderBytes(.heif(sequence)) == RenderPlanner.decoderBytes(.heif(header(avif, 4032, 3024)))
                + 50_000)
        let big = header(heic, 8064, 6048)
        let geometry = try RenderGeometry(
            storedSize: PixelSize(width: 8064, height: 6048), orientation: .up, operations: [])
        #expect {
            _ = try RenderPlanner.plan(
                source: .heif(big), geometry: geometry, encoding: OutputEncoding(quality: 92),
                limits: RenderLimits(memoryBudget: 128 << 20))
        } throws: { error in
            guard let error = error as? RenderError, error.code == .memoryBudgetExceeded,
                let needed = error.bytesNeeded, let reason = error.operation
            else { return false }
            return needed > 8064 * 6048 * 6 && reason.hasPrefix("decoding this HEIC's 8064×6048 image, coded whole")
        }
        let fits = try RenderPlanner.plan(
            source: .heif(big), geometry: geometry, encoding: OutputEncoding(quality: 92),
            limits: RenderLimits(memoryBudget: 512 << 20))
        #expect(fits.memory.total <= 512 << 20 && fits.heifDecode?.pixelBytes == 8064 * 6048 * 6)
    }

    /// The iPhone's grid (8×6 tiles of 512², coded 4032×3024 and turned by its irot) is priced a
    /// row of tiles at a time, and the explanation says so.
    @Test func theExplanationShowsTheTileRowDecode() throws {
        let plan = try Renderer.plan(Self.request(Self.sepia), input: FileSource(path: HEIFFixtures.arrow.path)) { _ in
            .up
        }
        let text = plan.description
        #expect(text.contains("input      4032×3024 coded HEIC"), "\(text)")
        #expect(text.contains("orientation 6 → 3024×4032"), "\(text)")
        #expect(text.contains("decode     a row of 8 tiles of 512×512 at a time"), "\(text)")
        let decode = try #require(plan.heifDecode)
        #expect(decode.tile == PixelSize(width: 512, height: 512) && decode.fileBytes == 792_052)
        #expect(
            plan.memory.decoder
                == 512 * 4032 * 3 + 512 * 512 * 6 + 792_052 + decode.itemBytes + HEIFDecode.codecBytes)
        #expect(decode.itemBytes > 0 && decode.itemBytes < 792_052 / 8)
        #expect(plan.memory.total <= plan.budget)
    }

    @Test func damagedInputFailsWithATypedErrorNamingIt() throws {
        let whole = try Self.heic()
        let output = MemoryUpload()
        #expect {
            _ = try Renderer.render(
                Self.request(), from: ChunkedSource(Array(whole.dropLast(8)), name: "cut.heic"),
                to: output, orientation: .up)
        } throws: { error in
            guard let codec = (error as? RenderError)?.codecError, let heif = codec.cause as? HEIFError else {
                return false
            }
            return heif.code == .damaged && heif.object == "cut.heic" && codec.format == .heif && codec.code == .damaged
                && (error as? RenderError)?.object == "cut.heic"
        }
        #expect(output.committed == nil)
    }

    /// An ISO media file that is no image (an MP4) is told by its brands, before it is read whole.
    @Test func otherISOMediaIsRefusedForWhatItIs() throws {
        let mp4: [UInt8] =
            [0, 0, 0, 20] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("mp41".utf8)
            + [UInt8](repeating: 0, count: 4096)
        #expect {
            _ = try Renderer.render(
                Self.request(), from: ChunkedSource(mp4, name: "clip.mov"), to: MemoryUpload(), orientation: .up)
        } throws: { error in
            guard let codec = (error as? RenderError)?.codecError, let heif = codec.cause as? HEIFError else {
                return false
            }
            return heif.code == .unsupported && heif.object == "clip.mov"
                && heif.message.contains("brand 'isom' (mp41)")
        }
    }

    /// The original's ICC profile travels with its pixels (libheif converts no colours).
    @Test func theICCProfileIsCarried() throws {
        let profile = try #require(try HEIFDecoder(source: FileSource(path: HEIFFixtures.arrow.path)).header.iccProfile)
        let rendered = try Self.render(try Self.heic(HEIFEncoding.input(iccProfile: profile)))
        let header = try JPEGDecoder(source: ChunkedSource(rendered.output)).header
        #expect(header.iccProfile == profile && HEIFFixtures.describesDisplayP3(profile))
        #expect(rendered.result.warnings.isEmpty)
    }

    /// nclx without an ICC profile: sRGB needs nothing; Display P3 gets the equivalent ICC
    /// profile (built by `ICCProfile`); what no SDR profile can describe (PQ) renders untagged
    /// with a warning.
    @Test func nclxColorsAreDescribedByAnEquivalentProfile() throws {
        let srgb = try Self.render(try Self.heic(HEIFEncoding.input(nclx: .sRGB)))
        #expect(
            try JPEGDecoder(source: ChunkedSource(srgb.output)).header.iccProfile == nil && srgb.result.warnings.isEmpty
        )
        #expect(HEIFFixtures.misplacedQuadrants(in: srgb.image).isEmpty)
        let p3 = try Self.render(try Self.heic(HEIFEncoding.input(nclx: .displayP3)))
        let embedded = try #require(try JPEGDecoder(source: ChunkedSource(p3.output)).header.iccProfile)
        #expect(embedded == (try ICCProfile(for: .displayP3).bytes) && p3.result.warnings.isEmpty)
        let pq = HEIFColorDescription(primaries: 9, transfer: 16, matrix: 9, fullRange: true)
        let hdr = try Self.render(try Self.heic(HEIFEncoding.input(nclx: pq)))
        #expect(try JPEGDecoder(source: ChunkedSource(hdr.output)).header.iccProfile == nil)
        #expect(hdr.result.warnings.map(\.code) == ["colour.profile_not_embedded"], "\(hdr.result.warnings)")
    }
}
