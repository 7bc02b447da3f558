import ByteStreams
import CLCMS
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

@testable import DarkroomImaging

/// CMYK and YCCK JPEGs (Photoshop's print and stock output) render to sRGB, a strip at a time:
/// through their own ICC profile with Little CMS, or without one by Adobe's convention. The
/// inputs are made here with libjpeg (which writes an Adobe marker, so the ink is stored
/// inverted, as Photoshop stores it); the expectations are computed here, from the CMYK values
/// the input decodes to: the formula written out, or Little CMS called directly.
@Suite struct CMYKRenderTests {
    static let width = 300
    /// Three strips of the default plan's 256 rows, the last short.
    static let height = 520

    /// Ink in every combination across the image: C across, M down, Y and K in bands.
    static func inkPixels() -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let ink = [
                    x * 255 / (width - 1), y * 255 / (height - 1), (x + 2 * y) % 256, ((x / 60 + y / 104) * 51) % 256,
                ]
                // Stored inverted: 255 is no ink.
                for channel in 0..<4 { pixels[(y * width + x) * 4 + channel] = UInt8(255 - ink[channel]) }
            }
        }
        return pixels
    }

    /// A CMYK or YCCK JPEG of `inkPixels`, with `profile` embedded when given.
    static func writeInput(_ color: JPEGEncoding.Color, profile: [UInt8]? = nil, to path: String) throws {
        let file = try FileUpload(finalPath: path)
        let encoder = try JPEGEncoder(sink: file)
        var encoding = JPEGEncoding(quality: 95)
        encoding.color = color
        try encoder.start(width: width, height: height, encoding: encoding)
        if let profile { try encoder.writeICCProfile(profile) }
        try inkPixels().withUnsafeBytes { try encoder.writeRows(from: $0, rowStride: width * 4, rowCount: height) }
        try encoder.finish()
        try file.commit()
    }

    /// The CMYK bytes the input decodes to (libjpeg turns YCCK into CMYK).
    static func decodedCMYK(_ path: String) throws -> [UInt8] {
        let decoder = try JPEGDecoder(source: FileSource(path: path))
        #expect(decoder.header.adobeTransform != nil, "libjpeg writes an Adobe marker for CMYK and YCCK")
        let size = try decoder.start(output: .cmyk)
        var cmyk = [UInt8](repeating: 0, count: size.width * size.height * 4)
        _ = try cmyk.withUnsafeMutableBytes {
            try decoder.readRows(into: $0, rowStride: size.width * 4, rowCount: size.height)
        }
        try decoder.finish()
        return cmyk
    }

    /// Renders `input` unchanged (quality 100, 4:4:4) and decodes the render.
    static func render(_ input: String, in folder: TemporaryFolder) throws -> (RenderResult, DecodedImage, [UInt8]?) {
        let output = folder.file("render.jpg")
        let request = RenderRequest(operations: [], encoding: OutputEncoding(quality: 100), spillDirectory: folder.path)
        let result = try Renderer.render(request, input: input, output: output, orientation: .up)
        let header = try JPEGDecoder(source: FileSource(path: output)).header
        return (result, try DecodedImage(path: output), header.iccProfile)
    }

    static func expectClose(
        _ image: DecodedImage, to expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(image.width == width && image.height == height, sourceLocation: sourceLocation)
        var total = 0
        var worst = 0
        for index in expected.indices {
            let difference = abs(Int(image.pixels[index]) - Int(expected[index]))
            total += difference
            worst = max(worst, difference)
        }
        let mean = Double(total) / Double(expected.count)
        // What a quality-100 re-encode of the converted rows costs, no more.
        #expect(mean < 0.8 && worst <= 12, "mean \(mean), worst \(worst)", sourceLocation: sourceLocation)
    }

    static let sRGB = try! ICCProfile(primaries: ColorPrimaries.bt709.rgbPrimaries!, transfer: .sRGB).bytes

    /// Adobe's convention, written out: inverted bytes are the paper left, R = C' · K' / 255.
    @Test(arguments: [JPEGEncoding.Color.cmyk, .ycck])
    func withoutAProfileInvertedInkBecomesRGBByAdobesConvention(_ color: JPEGEncoding.Color) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("input.jpg")
        try Self.writeInput(color, to: input)
        let header = try JPEGDecoder(source: FileSource(path: input)).header
        #expect(header.colorSpace == (color == .cmyk ? .cmyk : .ycck))
        #expect(header.adobeTransform == (color == .cmyk ? 0 : 2))
        let cmyk = try Self.decodedCMYK(input)
        var expected = [UInt8](repeating: 0, count: Self.width * Self.height * 3)
        for pixel in 0..<(Self.width * Self.height) {
            let k = Double(cmyk[pixel * 4 + 3]) / 255
            for channel in 0..<3 {
                expected[pixel * 3 + channel] = UInt8((255 * Double(cmyk[pixel * 4 + channel]) / 255 * k).rounded())
            }
        }
        let (result, image, profile) = try Self.render(input, in: folder)
        Self.expectClose(image, to: expected)
        #expect(result.warnings.isEmpty)
        #expect(profile == Self.sRGB, "the render is sRGB and says so")
        #expect(result.plan.memory.conversion == Self.width * 4 * result.plan.decodeRows)
    }

    /// A CMYK printer profile made with Little CMS: a smooth ink model into Lab (CIE D50).
    static func cmykProfile() throws -> [UInt8] {
        let profile = try #require(cmsCreateProfilePlaceholder(nil))
        defer { cmsCloseProfile(profile) }
        cmsSetProfileVersion(profile, 2.1)
        cmsSetDeviceClass(profile, cmsSigOutputClass)
        cmsSetColorSpace(profile, cmsSigCmykData)
        cmsSetPCS(profile, cmsSigLabData)
        let pipeline = try #require(cmsPipelineAlloc(nil, 4, 3))
        defer { cmsPipelineFree(pipeline) }
        let table = try #require(cmsStageAllocCLut16bit(nil, 9, 4, 3, nil))
        let sampled = cmsStageSampleCLut16bit(
            table,
            { input, output, _ in
                guard let input, let output else { return 0 }
                let ink = (0..<4).map { Double(input[$0]) / 65535 }
                // Paper left under each ink, darkened by black, with a little dot gain.
                let paper = (0..<3).map { pow((1 - ink[$0] * 0.95) * (1 - ink[3] * 0.9), 1.8) }
                var xyz = cmsCIEXYZ(
                    X: 0.4360747 * paper[0] + 0.3850649 * paper[1] + 0.1430804 * paper[2],
                    Y: 0.2225045 * paper[0] + 0.7168786 * paper[1] + 0.0606169 * paper[2],
                    Z: 0.0139322 * paper[0] + 0.0971045 * paper[1] + 0.7141733 * paper[2])
                var lab = cmsCIELab()
                cmsXYZ2Lab(nil, &lab, &xyz)
                cmsFloat2LabEncoded(output, &lab)
                return 1
            }, nil, 0)
        #expect(sampled != 0)
        #expect(cmsPipelineInsertStage(pipeline, cmsAT_BEGIN, table) != 0)
        #expect(cmsWriteTag(profile, cmsSigAToB0Tag, UnsafeRawPointer(pipeline)) != 0)
        var white = cmsCIEXYZ(X: 0.9642, Y: 1, Z: 0.8249)
        #expect(cmsWriteTag(profile, cmsSigMediaWhitePointTag, &white) != 0)
        var size: cmsUInt32Number = 0
        #expect(cmsSaveProfileToMem(profile, nil, &size) != 0)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        #expect(cmsSaveProfileToMem(profile, &bytes, &size) != 0)
        return bytes
    }

    /// Little CMS called directly: inverted CMYK 8-bit through `profile` to its built-in sRGB,
    /// perceptual intent.
    static func littleCMS(_ cmyk: [UInt8], profile: [UInt8]) throws -> [UInt8] {
        let input = try #require(profile.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) })
        defer { cmsCloseProfile(input) }
        let output = try #require(cmsCreate_sRGBProfile())
        defer { cmsCloseProfile(output) }
        let transform = try #require(
            cmsCreateTransform(
                input, DR_TYPE_CMYK_8_REV, output, DR_TYPE_RGB_8, cmsUInt32Number(INTENT_PERCEPTUAL), 0))
        defer { cmsDeleteTransform(transform) }
        var rgb = [UInt8](repeating: 0, count: cmyk.count / 4 * 3)
        cmsDoTransform(transform, cmyk, &rgb, UInt32(cmyk.count / 4))
        return rgb
    }

    @Test(arguments: [JPEGEncoding.Color.cmyk, .ycck])
    func withAProfileLittleCMSConvertsToSRGB(_ color: JPEGEncoding.Color) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("input.jpg")
        let profile = try Self.cmykProfile()
        try Self.writeInput(color, profile: profile, to: input)
        #expect(try JPEGDecoder(source: FileSource(path: input)).header.iccProfile == profile)
        let expected = try Self.littleCMS(try Self.decodedCMYK(input), profile: profile)
        let (result, image, outputProfile) = try Self.render(input, in: folder)
        Self.expectClose(image, to: expected)
        #expect(result.warnings.isEmpty)
        #expect(outputProfile == Self.sRGB)
        #expect(
            result.plan.memory.conversion == Self.width * 4 * result.plan.decodeRows + 4 << 20,
            "the CMYK rows and the transform are priced")
        // Not the naive formula: the profile changes the colours.
        let naive = try Self.decodedCMYK(input).withUnsafeBytes { cmyk in
            (0..<(Self.width * Self.height)).flatMap { pixel in
                let (r, g, b) = CMYKMethod.naiveRGB(
                    c: cmyk[pixel * 4], m: cmyk[pixel * 4 + 1], y: cmyk[pixel * 4 + 2], k: cmyk[pixel * 4 + 3],
                    inverted: true)
                return [r, g, b]
            }
        }
        #expect(image.meanDifference(to: DecodedImage(width: Self.width, height: Self.height, pixels: naive)) > 5)
    }

    /// A budget that holds only smaller strips gets the same bytes, converted in smaller strips; one
    /// that cannot hold the transform beside them is refused up front.
    @Test func theConversionRunsInStripsUnderTheBudget() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("input.jpg")
        try Self.writeInput(.ycck, profile: try Self.cmykProfile(), to: input)
        func render(budget: Int, threads: Int) throws -> (RenderPlan, Data) {
            var request = RenderRequest(
                operations: [.sepia(intensity: 0.5)], limits: RenderLimits(memoryBudget: budget),
                spillDirectory: folder.path)
            request.threads = threads
            let output = folder.file("render-\(budget)-\(threads).jpg")
            let result = try Renderer.render(request, input: input, output: output, orientation: .right)
            #expect(result.plan.memory.total <= budget)
            return (result.plan, try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        let roomy = try render(budget: 256 << 20, threads: 2)
        let tight = try render(budget: 4_600_000, threads: 1)
        #expect(tight.0.decodeRows < roomy.0.decodeRows, "\(tight.0)")
        #expect(tight.1 == roomy.1)
        let error = #expect(throws: RenderError.self) { _ = try render(budget: 4 << 20, threads: 1) }
        #expect(error?.code == .memoryBudgetExceeded, "expected the budget's refusal, got \(String(describing: error))")
    }

    /// An RGB profile on CMYK pixels cannot convert them: the naive formula, with a warning.
    @Test func aProfileThatCannotConvertFallsBackWithAWarning() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("input.jpg")
        let rgbProfile = try Fixtures.bytes(of: Fixtures.root.appendingPathComponent("icc/apple-display-p3.icc"))
        try Self.writeInput(.cmyk, profile: rgbProfile, to: input)
        let (result, image, outputProfile) = try Self.render(input, in: folder)
        #expect(result.warnings.map(\.code) == ["colour.cmyk_profile_not_used"])
        #expect(result.warnings.first?.message.contains("not CMYK pixels") == true, "\(result.warnings)")
        #expect(outputProfile == Self.sRGB)
        let cmyk = try Self.decodedCMYK(input)
        let expected = (0..<(Self.width * Self.height)).flatMap { pixel in
            let (r, g, b) = CMYKMethod.naiveRGB(
                c: cmyk[pixel * 4], m: cmyk[pixel * 4 + 1], y: cmyk[pixel * 4 + 2], k: cmyk[pixel * 4 + 3],
                inverted: true)
            return [r, g, b]
        }
        Self.expectClose(image, to: expected)
    }

    /// Real Adobe CMYK files without a profile (Mozilla's reftests; see Tests/Fixtures/cmyk).
    @Test(arguments: ["jpg-cmyk-1.jpg", "jpg-cmyk-2.jpg"])
    func realAdobeCMYKFilesRenderByTheConvention(_ name: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = Fixtures.root.appendingPathComponent("cmyk/\(name)").path
        let header = try JPEGDecoder(source: FileSource(path: input)).header
        #expect(header.colorSpace == .cmyk && header.adobeTransform == 0 && header.iccProfile == nil)
        let cmyk = try Self.decodedCMYK(input)
        let expected = (0..<(header.width * header.height)).flatMap { pixel in
            let k = Double(cmyk[pixel * 4 + 3]) / 255
            return (0..<3).map { UInt8((Double(cmyk[pixel * 4 + $0]) * k).rounded()) }
        }
        let (result, image, profile) = try Self.render(input, in: folder)
        #expect(result.warnings.isEmpty && profile == Self.sRGB)
        #expect(image.width == header.width && image.height == header.height)
        let mean = image.meanDifference(to: DecodedImage(width: header.width, height: header.height, pixels: expected))
        #expect(mean < 0.8, "mean \(mean)")
        #expect(Set(expected).count > 16, "a picture, not a flat colour")
    }

    /// Which conversion a header gets: a value, from the header's facts alone.
    @Test func theMethodFollowsTheHeader() {
        var header = JPEGHeader(
            width: 8, height: 8, components: 4, colorSpace: .cmyk, isProgressive: false,
            samplingFactors: Array(repeating: .init(horizontal: 1, vertical: 1), count: 4))
        #expect(CMYKMethod(header) == .naive(inverted: false), "no Adobe marker: ink amounts")
        header.adobeTransform = 2
        header.colorSpace = .ycck
        #expect(CMYKMethod(header) == .naive(inverted: true))
        header.iccProfile = [1, 2, 3]
        #expect(CMYKMethod(header) == .profile([1, 2, 3], inverted: true))
        header.colorSpace = .ycbcr
        #expect(CMYKMethod(header) == nil)
        // Non-inverted: 0 is no ink. Full cyan leaves no red; full black leaves nothing.
        #expect(CMYKMethod.naiveRGB(c: 255, m: 0, y: 0, k: 0, inverted: false) == (0, 255, 255))
        #expect(CMYKMethod.naiveRGB(c: 0, m: 0, y: 0, k: 255, inverted: false) == (0, 0, 0))
        #expect(CMYKMethod.naiveRGB(c: 255, m: 128, y: 255, k: 128, inverted: true) == (128, 64, 128))
    }

    /// The RGB decode of a CMYK file is refused: only the conversion here knows what its ink means.
    @Test func theDecoderDoesNotGuessRGB() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("input.jpg")
        try Self.writeInput(.ycck, to: input)
        let error = #expect(throws: JPEGError.self) { _ = try JPEGDecoder(source: FileSource(path: input)).start() }
        #expect(error?.code == .unsupported)
    }
}
