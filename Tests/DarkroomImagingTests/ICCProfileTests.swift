import DarkroomImaging
import DarkroomTestSupport
import Foundation
import Testing

/// The nclx → ICC profile builder against Apple's Display P3 profile, the published sRGB colorants,
/// the H.273 formulas and Little CMS.
@Suite struct ICCProfileTests {
    static let sRGB = ColorDescription(primaries: .bt709, transfer: .sRGB, matrix: .bt601, isFullRange: true)
    static let appleDisplayP3 = Fixtures.root.appendingPathComponent("icc/apple-display-p3.icc")

    func close(_ a: SIMD3<Double>, _ b: SIMD3<Double>, within tolerance: Double) -> Bool {
        let difference = a - b
        return max(abs(difference.x), abs(difference.y), abs(difference.z)) <= tolerance
    }

    @Test func displayP3MatchesApplesProfile() throws {
        let ours = try ICCProfileReader(try ICCProfile(for: .displayP3).bytes)
        let apple = try ICCProfileReader(try Fixtures.bytes(of: Self.appleDisplayP3))
        for tag in ["wtpt", "rXYZ", "gXYZ", "bXYZ"] {
            let (mine, theirs) = (try ours.xyz(tag), try apple.xyz(tag))
            #expect(close(mine, theirs, within: 0.001), "\(tag): \(mine) against Apple's \(theirs)")
        }
        let (mine, theirs) = (try ours.s15Fixed16Array("chad"), try apple.s15Fixed16Array("chad"))
        #expect(
            mine.count == 9 && zip(mine, theirs).allSatisfy { abs($0 - $1) <= 0.001 }, "chad: \(mine) against \(theirs)"
        )
        #expect(try ours.textDescription("desc") == "Display P3")
    }

    @Test func sRGBHasThePublishedColorants() throws {
        #expect(Self.sRGB.isSRGB)
        let profile = try ICCProfileReader(try ICCProfile(for: Self.sRGB).bytes)
        // IEC 61966-2-1's primaries adapted to D50 with Bradford, as the sRGB profiles publish them.
        let published: [String: SIMD3<Double>] = [
            "rXYZ": SIMD3(0.4361, 0.2225, 0.0139), "gXYZ": SIMD3(0.3851, 0.7169, 0.0971),
            "bXYZ": SIMD3(0.1431, 0.0606, 0.7141), "wtpt": SIMD3(0.9505, 1.0000, 1.0891),
        ]
        for (tag, expected) in published {
            let colorant = try profile.xyz(tag)
            #expect(close(colorant, expected, within: 0.001), "\(tag): \(colorant)")
        }
    }

    /// Every profile darkroom can build, read back: header, tag table, element types, and
    /// colorants that add up to the PCS white (so RGB white maps to white).
    @Test func everyProfileIsStructurallyValid() throws {
        var built = 0
        for primaries in ColorPrimaries.allCases where primaries.rgbPrimaries != nil {
            for transfer in TransferCharacteristics.allCases {
                let description = ColorDescription(
                    primaries: primaries, transfer: transfer, matrix: .bt601, isFullRange: true)
                guard let profile = try? ICCProfile(for: description) else { continue }
                built += 1
                #expect(
                    profile.bytes == (try ICCProfile(for: description)).bytes,
                    "the same description gives the same bytes")
                #expect(profile.bytes.count % 4 == 0)
                let reader = try ICCProfileReader(profile.bytes)
                #expect(reader.version == 0x0210_0000)
                #expect([reader.header(12), reader.header(16), reader.header(20)] == ["mntr", "RGB ", "XYZ "])
                #expect(profile.bytes[84..<100].allSatisfy { $0 == 0 }, "v2 has no profile ID")
                #expect(
                    Set(reader.tags.keys) == [
                        "desc", "cprt", "wtpt", "rXYZ", "gXYZ", "bXYZ", "rTRC", "gTRC", "bTRC", "chad",
                    ])
                #expect(try reader.type(of: "cprt") == "text")
                #expect(try reader.textDescription("desc") == profile.name)
                #expect(reader.tags["rTRC"]!.offset == reader.tags["gTRC"]!.offset, "one shared curve element")
                let sum = try reader.xyz("rXYZ") + reader.xyz("gXYZ") + reader.xyz("bXYZ")
                #expect(
                    close(sum, SIMD3(0.9642, 1, 0.8249), within: 2.0 / 65536), "\(description): colorants sum to \(sum)"
                )
            }
        }
        // 8 primaries (1, 2, 5, 6, 7, 9, 11, 12) × 9 transfers (1, 2, 4, 5, 6, 8, 13, 14, 15).
        #expect(built == 72)
    }

    /// H.273 Table 3, light → encoded value, written from the standard rather than from the builder.
    static func h273Encode(_ transfer: TransferCharacteristics, _ light: Double) -> Double {
        switch transfer {
        case .bt709, .bt601, .bt2020TenBit, .bt2020TwelveBit:
            let alpha = 1.09929682680944
            let beta = 0.018053968510807
            return light >= beta ? alpha * pow(light, 0.45) - (alpha - 1) : 4.5 * light
        case .sRGB, .unspecified:  // unspecified is read as sRGB
            return light >= 0.0031308 ? 1.055 * pow(light, 1 / 2.4) - 0.055 : 12.92 * light
        case .linear: return light
        case .gamma22: return pow(light, 1 / 2.2)
        case .gamma28: return pow(light, 1 / 2.8)
        default: return .nan
        }
    }

    @Test(arguments: [
        TransferCharacteristics.bt709, .bt601, .bt2020TenBit, .bt2020TwelveBit, .sRGB, .unspecified,
        .linear, .gamma22, .gamma28,
    ])
    func curveFollowsTheH273Formula(transfer: TransferCharacteristics) throws {
        let description = ColorDescription(
            primaries: .bt2020, transfer: transfer, matrix: .bt2020NonConstant, isFullRange: true)
        let curve = try ICCProfileReader(try ICCProfile(for: description).bytes).sampledCurve("rTRC")
        var worst = 0.0
        for step in 0...1000 {
            let light = Double(step) / 1000
            worst = max(worst, abs(curve(Self.h273Encode(transfer, light)) - light))
        }
        #expect(worst <= 2e-5, "\(transfer): the curve is off the formula by \(worst)")
    }

    @Test func refusesWhatItCannotDescribe() {
        func refusal(_ primaries: ColorPrimaries, _ transfer: TransferCharacteristics) -> ICCProfileError? {
            do throws(ICCProfileError) {
                _ = try ICCProfile(
                    for: ColorDescription(
                        primaries: primaries, transfer: transfer, matrix: .bt2020NonConstant, isFullRange: false))
                return nil
            } catch { return error }
        }
        #expect(refusal(.bt2020, .pq) == .highDynamicRange(.pq))
        #expect(refusal(.displayP3, .hlg) == .highDynamicRange(.hlg))
        #expect(refusal(.bt2020, .pq)?.code.rawValue == "icc_hdr_transfer")
        #expect(refusal(.bt709, .logarithmic100) == .unsupportedTransfer(.logarithmic100))
        #expect(refusal(.xyz, .sRGB) == .unsupportedPrimaries(.xyz))
        #expect(refusal(.xyz, .sRGB)?.description.contains("supported: 1, 2, 5, 6, 7, 9, 11, 12") == true)
    }

    @Test func refusesChromaticitiesThatSpanNoColorSpace() {
        let p3 = ColorPrimaries.displayP3.rgbPrimaries!
        var flat = p3
        flat.blue = Chromaticity(x: 0.15, y: 0)
        var collinear = p3
        collinear.green = Chromaticity(x: (p3.red.x + p3.blue.x) / 2, y: (p3.red.y + p3.blue.y) / 2)
        var whiteOutside = p3
        whiteOutside.white = Chromaticity(x: 0.05, y: 0.9)
        for primaries in [flat, collinear, whiteOutside] {
            #expect(throws: ICCProfileError.invalidPrimaries(primaries)) {
                try ICCProfile(primaries: primaries, transfer: .sRGB)
            }
        }
        #expect(throws: ICCProfileError.highDynamicRange(.pq)) { try ICCProfile(primaries: p3, transfer: .pq) }
        #expect((try? ICCProfile(primaries: p3, transfer: .sRGB))?.bytes == (try? ICCProfile(for: .displayP3))?.bytes)
    }

    @Test func whichDescriptionsAreAlreadySRGB() {
        func description(_ primaries: ColorPrimaries, _ transfer: TransferCharacteristics, full: Bool = true)
            -> ColorDescription
        {
            ColorDescription(primaries: primaries, transfer: transfer, matrix: .bt709, isFullRange: full)
        }
        #expect(description(.bt709, .sRGB).isSRGB)
        #expect(description(.unspecified, .unspecified).isSRGB)
        #expect(
            description(.bt709, .unspecified, full: false).isSRGB,
            "range and matrix say how YCbCr became RGB, not what RGB means")
        #expect(!ColorDescription.displayP3.isSRGB)
        #expect(!description(.bt709, .bt709).isSRGB, "the BT.709 curve is not the sRGB curve")
        #expect(!description(.bt2020, .sRGB).isSRGB)
    }

    @Test func codePointsFromAFile() throws {
        #expect(try ColorDescription(primaries: 12, transfer: 13, matrix: 6, isFullRange: true) == .displayP3)
        #expect(throws: ColorDescriptionError.unknownCodePoint(field: "colour_primaries", value: 3)) {
            try ColorDescription(primaries: 3, transfer: 13, matrix: 6, isFullRange: true)
        }
        #expect(throws: ColorDescriptionError.unknownCodePoint(field: "transfer_characteristics", value: 19)) {
            try ColorDescription(primaries: 1, transfer: 19, matrix: 6, isFullRange: true)
        }
        #expect(throws: ColorDescriptionError.unknownCodePoint(field: "matrix_coefficients", value: 3)) {
            try ColorDescription(primaries: 1, transfer: 13, matrix: 3, isFullRange: true)
        }
    }

    /// Little CMS loads darkroom's profiles and transforms through them as through Apple's:
    /// P3 red lands outside sRGB (red above 255, green below 0), where lcms puts Apple's.
    @Test func littleCMSTransformsLikeApplesProfile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("darkroom-icc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func write(_ profile: ICCProfile, _ name: String) throws -> String {
            let url = folder.appendingPathComponent(name)
            try Data(profile.bytes).write(to: url)
            return url.path
        }
        let colours: [SIMD3<Double>] = [
            SIMD3(255, 0, 0), SIMD3(0, 255, 0), SIMD3(0, 0, 255), SIMD3(255, 255, 255),
            SIMD3(128, 64, 200), SIMD3(10, 20, 30),
        ]
        let ours = try Self.transicc(input: try write(try ICCProfile(for: .displayP3), "p3.icc"), colours)
        let apples = try Self.transicc(input: Self.appleDisplayP3.path, colours)
        for (index, colour) in colours.enumerated() {
            #expect(
                close(ours[index], apples[index], within: 0.5),
                "\(colour): ours \(ours[index]), Apple's \(apples[index])")
        }
        #expect(ours[0].x > 260 && ours[0].y < -100, "P3 red is outside sRGB: \(ours[0])")
        // An sRGB profile of darkroom's maps sRGB onto itself.
        let identity = try Self.transicc(input: try write(try ICCProfile(for: Self.sRGB), "srgb.icc"), colours)
        for (index, colour) in colours.enumerated() {
            #expect(close(identity[index], colour, within: 0.5), "\(colour) → \(identity[index])")
        }
    }

    /// `transicc` (liblcms2-utils): RGB 0–255 in the input profile → lcms's built-in sRGB,
    /// relative colorimetric, unbounded so out-of-gamut colours show.
    static func transicc(input profile: String, _ colours: [SIMD3<Double>]) throws -> [SIMD3<Double>] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["transicc", "-t1", "-c0", "-n", "-i\(profile)", "-o*sRGB"]
        let (input, output, errors) = (Pipe(), Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let reader = PipeReader(output.fileHandleForReading.fileDescriptor)
        let errorReader = PipeReader(errors.fileHandleForReading.fileDescriptor)
        input.fileHandleForWriting.write(Data(colours.map { "\($0.x) \($0.y) \($0.z)\n" }.joined().utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let errorText = String(decoding: errorReader.result(), as: UTF8.self)
        try #require(
            process.terminationStatus == 0,
            "transicc failed (\(process.terminationStatus)); it comes with liblcms2-utils (`make tool-deps`): \(errorText)"
        )
        let values = String(decoding: reader.result(), as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        try #require(values.count == 3 * colours.count, "transicc printed \(values): \(errorText)")
        return (0..<colours.count).map { SIMD3(values[3 * $0], values[3 * $0 + 1], values[3 * $0 + 2]) }
    }
}
