import ByteStreams
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

@testable import DarkroomImaging

/// The filter kernel against a tetrahedral interpolation written here from its definition
/// (the cell's six tetrahedra as a walk along the axes in order of their fractions, in double
/// precision), identity tables, 1D curves and whole renders.
@Suite struct FilterKernelTests {
    // MARK: The reference

    static func encoded(_ linear: Double) -> Double {
        let x = min(max(linear, 0), 1)
        return x <= 0.0031308 ? x * 12.92 : 1.055 * pow(x, 1 / 2.4) - 0.055
    }

    static func decoded(_ encoded: Double) -> Double {
        let v = min(max(encoded, 0), 1)
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// What the filter makes of one linear-light pixel: encode, place on the grid, interpolate,
    /// clamp, decode, mix.
    static func reference(_ table: ColorLookupTable, intensity: Double, _ pixel: [Double]) -> [Double] {
        reference(table, values: table.values.map(Double.init), intensity: intensity, pixel)
    }

    /// The same with the table's values read once (`values`).
    static func reference(_ table: ColorLookupTable, values: [Double], intensity: Double, _ pixel: [Double])
        -> [Double]
    {
        let low = [table.domainMin.red, table.domainMin.green, table.domainMin.blue].map(Double.init)
        let high = [table.domainMax.red, table.domainMax.green, table.domainMax.blue].map(Double.init)
        let last = Double(table.size - 1)
        let position = (0..<3).map { c in
            min(max((encoded(pixel[c]) - low[c]) / (high[c] - low[c]) * last, 0), last)
        }
        let base = position.map { min(Int($0.rounded(.down)), table.size - 2) }
        let fraction = (0..<3).map { position[$0] - Double(base[$0]) }
        var looked = [Double](repeating: 0, count: 3)
        switch table.kind {
        case .curves:
            for c in 0..<3 {
                let below = values[base[c] * 3 + c]
                looked[c] = below + (values[(base[c] + 1) * 3 + c] - below) * fraction[c]
            }
        case .cube:
            // From the cell's lowest corner, step along the axis with the largest fraction,
            // then the next: the corners of the tetrahedron holding the point, with weights
            // 1 − f₁, f₁ − f₂, f₂ − f₃, f₃.
            let axes = [0, 1, 2].sorted { fraction[$0] > fraction[$1] }
            let f = axes.map { fraction[$0] }
            let weights = [1 - f[0], f[0] - f[1], f[1] - f[2], f[2]]
            var corner = base
            for (step, weight) in weights.enumerated() {
                if step > 0 { corner[axes[step - 1]] += 1 }
                let index = (corner[0] + table.size * (corner[1] + table.size * corner[2])) * 3
                for c in 0..<3 { looked[c] += weight * values[index + c] }
            }
        }
        return (0..<3).map { c in pixel[c] + (decoded(looked[c]) - pixel[c]) * intensity }
    }

    /// A table with every point somewhere random (seeded), slightly outside 0…1 here and there.
    static func randomTable(kind: ColorLookupTable.Kind, size: Int, seed: UInt64, domain: (Float, Float) = (0, 1))
        -> ColorLookupTable
    {
        var generator = SplitMix(seed: seed)
        let count = (kind == .cube ? size * size * size : size) * 3
        let values = (0..<count).map { _ in Float.random(in: -0.05...1.05, using: &generator) }
        return ColorLookupTable(
            kind: kind, size: size, values: values, domainMin: .grey(domain.0), domainMax: .grey(domain.1), title: nil)
    }

    func run(_ step: FilterStep, codes: [UInt8]) -> [UInt8] {
        var linear = codes.map { SRGB.decodeTable[Int($0)] }
        linear.withUnsafeMutableBufferPointer { buffer in
            ColorKernels.apply(
                PlacedOperation(
                    operation: .filter(step), canvas: PixelSize(width: codes.count / 3, height: 1), offsetX: 0,
                    offsetY: 0),
                to: LinearStrip(pixels: buffer, width: codes.count / 3, rows: 1, firstRow: 0))
        }
        return linear.map(SRGB.encode)
    }

    /// Every code on each channel, and a 32-step lattice of colours.
    static let codes: [UInt8] = {
        var codes: [UInt8] = []
        for i in 0..<256 { codes += [UInt8(i), UInt8((i * 7) % 256), UInt8((i * 31 + 5) % 256)] }
        for b in stride(from: 0, to: 256, by: 8) {
            for g in stride(from: 3, to: 256, by: 8) {
                for r in stride(from: 5, to: 256, by: 8) { codes += [UInt8(r), UInt8(g), UInt8(b)] }
            }
        }
        return codes
    }()

    // MARK: Tests

    @Test(arguments: [2, 3, 17, 33, 65])
    func identityCubesGiveBackEveryCode(size: Int) {
        let table = ColorLookupTable.identity(kind: .cube, size: size)
        #expect(run(FilterStep(name: "id", version: "1.0.0", table: table), codes: Self.codes) == Self.codes)
        #expect(
            run(FilterStep(name: "id", version: "1.0.0", intensity: 0.4, table: table), codes: Self.codes)
                == Self.codes)
    }

    @Test(arguments: [2, 32, 4096])
    func identityCurvesGiveBackEveryCode(size: Int) {
        let table = ColorLookupTable.identity(kind: .curves, size: size)
        #expect(run(FilterStep(name: "id", version: "1.0.0", table: table), codes: Self.codes) == Self.codes)
    }

    /// `out`, the filter's output on `codes` (linear light by `decode`), against the reference:
    /// every sample at most one code apart, and fewer than one in fifty not the same code.
    static func expectNearTheReference(
        _ out: [UInt8], codes: [UInt8], table: ColorLookupTable, intensity: Float, decode: (UInt8) -> Double
    ) {
        let values = table.values.map(Double.init)
        var differing = 0
        for pixel in 0..<(codes.count / 3) {
            let input = (0..<3).map { decode(codes[pixel * 3 + $0]) }
            let expected = reference(table, values: values, intensity: Double(intensity), input)
            for c in 0..<3 {
                let want = Int((encoded(expected[c]) * 255).rounded())
                let got = Int(out[pixel * 3 + c])
                #expect(abs(want - got) <= 1, "pixel \(pixel) channel \(c): \(got), reference \(want)")
                if want != got { differing += 1 }
            }
        }
        #expect(differing * 50 < codes.count, "\(differing) of \(codes.count) samples differ by a code")
    }

    /// The kernel's tables of the transfer curves are the only difference from the reference:
    /// at most one code apart anywhere, and almost always the same code.
    @Test(arguments: [(ColorLookupTable.Kind.cube, 17), (.cube, 33), (.cube, 2), (.curves, 64)])
    func matchesTheReference(kind: ColorLookupTable.Kind, size: Int) {
        for (intensity, domain): (Float, (Float, Float)) in [(1, (0, 1)), (0.6, (-0.1, 1.2)), (0, (0, 1))] {
            let table = Self.randomTable(kind: kind, size: size, seed: UInt64(size), domain: domain)
            let out = run(
                FilterStep(name: "r", version: "1.0.0", intensity: intensity, table: table), codes: Self.codes)
            Self.expectNearTheReference(out, codes: Self.codes, table: table, intensity: intensity) {
                Double(SRGB.decodeTable[Int($0)])
            }
        }
    }

    /// OBS Studio's grayscale LUT (a real 32³ table) on a whole render at quality 100 4:4:4,
    /// against the reference on the decoded input: PSNR well above what JPEG itself loses.
    @Test func aRenderMatchesTheReferenceAtQuality100() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let width = 96
        let height = 64
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let base = (y * width + x) * 3
                pixels[base] = UInt8(x * 255 / (width - 1))
                pixels[base + 1] = UInt8(y * 255 / (height - 1))
                pixels[base + 2] = UInt8((x * 3 + y * 5) % 256)
            }
        }
        let input = folder.file("input.jpg")
        let file = try FileUpload(finalPath: input)
        let encoder = try JPEGEncoder(sink: file)
        try encoder.start(width: width, height: height, encoding: JPEGEncoding(quality: 100, fullChroma: true))
        try pixels.withUnsafeBytes { try encoder.writeRows(from: $0, rowStride: width * 3, rowCount: height) }
        try encoder.finish()
        try file.commit()
        let decodedInput = try DecodedImage(path: input)

        let table = try Self.lutFixture("obs-grayscale.cube")
        let output = folder.file("output.jpg")
        let request = RenderRequest(
            operations: [.filter(FilterStep(name: "grayscale", version: "1.0.0", intensity: 0.8, table: table))],
            encoding: OutputEncoding(quality: 100, fullChroma: true), spillDirectory: folder.path)
        let result = try Renderer.render(request, input: input, output: output, orientation: .up)
        #expect(result.plan.memory.tables >= table.byteCount + TransferCurves.bytes)
        let rendered = try DecodedImage(path: output)

        let values = table.values.map(Double.init)
        var squared = 0.0
        for index in stride(from: 0, to: decodedInput.pixels.count, by: 3) {
            let linear = (0..<3).map { Double(SRGB.decodeTable[Int(decodedInput.pixels[index + $0])]) }
            let expected = Self.reference(table, values: values, intensity: 0.8, linear)
            for c in 0..<3 {
                let difference = Self.encoded(expected[c]) * 255 - Double(rendered.pixels[index + c])
                squared += difference * difference
            }
        }
        let psnr = 10 * log10(255 * 255 / (squared / Double(decodedInput.pixels.count)))
        #expect(psnr > 45, "PSNR \(psnr) dB")
    }

    @Test func aFilterWithoutItsTableIsRefusedBeforeDecoding() throws {
        let error = #expect(throws: RenderError.self) {
            try RenderGeometry(
                storedSize: PixelSize(width: 8, height: 8), orientation: .up,
                operations: [.exposure(ev: 1), .filter(FilterStep(name: "dusk", version: "2.1.0"))])
        }
        #expect(error == .filterNotLoaded(operationIndex: 1, filter: "dusk@2.1.0"))
        #expect(error?.isPermanent == true && error?.code == .filterNotLoaded && error?.operationIndex == 1)
    }

    /// One table used twice is counted once.
    @Test func thePlanCountsEachTableOnce() throws {
        let table = ColorLookupTable.identity(kind: .cube, size: 33)
        let other = ColorLookupTable.identity(kind: .cube, size: 5)
        let geometry = try RenderGeometry(
            storedSize: PixelSize(width: 8, height: 8), orientation: .up,
            operations: [
                .filter(FilterStep(name: "a", version: "1.0.0", table: table)), .sepia(intensity: 1),
                .filter(FilterStep(name: "a", version: "1.0.0", intensity: 0.5, table: table)),
                .filter(FilterStep(name: "b", version: "1.0.0", table: other)),
            ])
        #expect(
            RenderPlanner.lookupTableBytes(geometry)
                == TransferCurves.bytes + 33 * 33 * 33 * 4 * 4 + 5 * 5 * 5 * 4 * 4)
        #expect(
            RenderPlanner.lookupTableBytes(
                try RenderGeometry(
                    storedSize: PixelSize(width: 8, height: 8), orientation: .up, operations: [.sepia(intensity: 1)]))
                == 0)
    }

    /// A table's points as the fixture's numbers, read here without darkroom's parser (which
    /// DarkroomImaging does not have): a LUT_3D_SIZE line, then three numbers a line.
    static func lutFixture(_ name: String) throws -> ColorLookupTable {
        let text = String(
            decoding: try Fixtures.bytes(of: Fixtures.root.appendingPathComponent("luts/" + name)), as: UTF8.self)
        var size = 0
        var values: [Float] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: " ")
            if fields.first == "LUT_3D_SIZE" { size = Int(fields[1])! } else { values += fields.map { Float($0)! } }
        }
        return ColorLookupTable(
            kind: .cube, size: size, values: values, domainMin: .black, domainMax: .grey(1), title: nil)
    }
}

extension SplitMix: RandomNumberGenerator {}
