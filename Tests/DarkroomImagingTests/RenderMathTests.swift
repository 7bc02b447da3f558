import ByteStreams
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

@testable import DarkroomImaging

/// Every operation's output on one synthetic image, as a 64-bit FNV-1a hash of the decoded
/// render, recorded with the math version it was made under. A change that alters an
/// operation's pixels fails here until its `RenderMath` version is raised and the golden
/// recorded again (the message prints the new hash), so stale renders can always be found.
@Suite struct RenderMathTests {
    /// name → (math version, hash of the render of `example`).
    static let goldens: [String: (version: Int, hash: UInt64)] = [
        "chromaKey": (1, 0x0e1f_21b7_2297_f717),
        "colorControls": (1, 0x5a5d_45e0_5307_8efa),
        "colorMatrix": (1, 0x9f8e_dd22_8d80_1aa8),
        "crop": (1, 0xdd6c_b94d_49e0_3a28),
        "exposure": (1, 0xaa20_76bc_0616_a7c5),
        "filter": (2, 0x4969_e609_e306_0a42),
        "gaussianBlur": (1, 0xee2a_720f_027a_57d6),
        "orient": (1, 0xb46b_f02b_b94b_313a),
        "photoEffect": (1, 0x30e1_6794_6dc3_1599),
        "posterize": (1, 0x77e5_2f97_d7e3_90c6),
        "rotate": (2, 0xc221_32c8_9285_bc00),
        "rotate, sheared": (2, 0x7c2b_e44a_307f_09e0),
        "rotate, 2D": (2, 0x5b0b_10f5_055c_3ca4),
        "sepia": (1, 0x05a4_295d_6c32_c7f8),
        "unsharpMask": (1, 0x33cc_0560_a816_317e),
        "vignette": (1, 0x4466_d053_afaf_308a),
    ]

    /// One example of each operation, with parameters away from their defaults.
    static let examples: [ImageOperation] = [
        .chromaKey(ChromaKey(key: RGBColor(red: 0.2, green: 0.8, blue: 0.3), threshold: 0.4, background: .grey(0.5))),
        .colorControls(saturation: 1.3, brightness: 0.05, contrast: 1.2),
        .colorMatrix(ColorMatrix(rows: [0.9, 0.1, 0, 0.05, 0.9, 0.05, 0, 0.2, 0.8], offset: .grey(0.01))),
        .crop(PixelRect(x: 5, y: 3, width: 40, height: 30)),
        .exposure(ev: 0.7),
        .filter(
            FilterStep(
                name: "golden", version: "1.0.0", intensity: 0.7,
                table: ColorLookupTable(
                    kind: .cube, size: 3,
                    values: (0..<27).flatMap { index -> [Float] in
                        let (r, g, b) = (Float(index % 3) / 2, Float(index / 3 % 3) / 2, Float(index / 9) / 2)
                        return [g * 0.9 + 0.05, b * 0.8 + r * 0.2, r * r]
                    }, domainMin: .black, domainMax: .grey(1), title: nil))),
        .gaussianBlur(sigma: 2.5),
        .orient(.rightMirrored),
        .photoEffect(.instant, intensity: 0.8),
        .posterize(levels: 5),
        .rotate(Rotation(degrees: 7, window: .wholeCanvas, fill: RGBColor(red: 0.9, green: 0.5, blue: 0.1))),
        .sepia(intensity: 0.6),
        .unsharpMask(sigma: 1.5, intensity: 0.8),
        .vignette(intensity: 1.5, radius: 0.7),
    ]

    /// Operations whose math takes another path in some renders, each a golden of its own: a
    /// lone turn by at most 45° goes through three shears (the example, with a fill, and without
    /// one), a turn past 45° through the 2D sampler.
    static let paths: [(golden: String, operation: ImageOperation)] = [
        ("rotate, sheared", .rotate(Rotation(degrees: 7, window: .largestUpright))),
        (
            "rotate, 2D",
            .rotate(Rotation(degrees: 60, window: .wholeCanvas, fill: RGBColor(red: 0.9, green: 0.5, blue: 0.1)))
        ),
    ]

    @Test func everyOperationHasAVersionAndAnExample() {
        #expect(Set(Self.examples.map(\.kind)) == Set(ImageOperation.Kind.allCases))
        #expect(Set(RenderMath.versions.keys) == Set(ImageOperation.Kind.allCases.map(\.rawValue)))
        #expect(Set(Self.goldens.keys) == Set(RenderMath.versions.keys).union(Self.paths.map(\.golden)))
    }

    @Test(arguments: examples.map { ($0.name, $0) } + paths)
    func goldenOutputChangesOnlyWithItsVersion(golden name: String, operation: ImageOperation) throws {
        let hash = try Self.render(operation)
        let golden = try #require(Self.goldens[name])
        let version = try #require(RenderMath.versions[operation.name])
        if version == golden.version {
            #expect(
                hash == golden.hash,
                """
                \(name) renders differently (hash \(String(hash, radix: 16))) under math version \(version): \
                raise RenderMath.versions["\(operation.name)"] and record the new hash and version in goldens["\(name)"]
                """)
        } else {
            Issue.record(
                "\(name): math version \(version), golden \(golden.version): record (\(version), 0x\(String(hash, radix: 16)))"
            )
        }
    }

    /// A 64×48 gradient, rendered at quality 100 4:4:4, decoded, hashed.
    static func render(_ operation: ImageOperation) throws -> UInt64 {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (width, height) = (64, 48)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let base = (y * width + x) * 3
                pixels[base] = UInt8(x * 4)
                pixels[base + 1] = UInt8(y * 5)
                pixels[base + 2] = UInt8((x * 7 + y * 3) % 256)
            }
        }
        let input = folder.file("input.jpg")
        let file = try FileUpload(finalPath: input)
        let encoder = try JPEGEncoder(sink: file)
        try encoder.start(width: width, height: height, encoding: JPEGEncoding(quality: 100, fullChroma: true))
        try pixels.withUnsafeBytes { try encoder.writeRows(from: $0, rowStride: width * 3, rowCount: height) }
        try encoder.finish()
        try file.commit()
        let output = folder.file("output.jpg")
        let request = RenderRequest(
            operations: [operation], encoding: OutputEncoding(quality: 100, fullChroma: true),
            spillDirectory: folder.path)
        _ = try Renderer.render(request, input: input, output: output, orientation: .up)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in try DecodedImage(path: output).pixels {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
