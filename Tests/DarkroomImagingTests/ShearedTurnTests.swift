import DarkroomTestSupport
import Foundation
import Testing

@testable import DarkroomImaging

/// A turn by at most 45° as three shears (`ShearedTurn`, `ShearKernels`, `ShearedRows`): the
/// decomposition, the weights, the row stage against the passes written out naively, and the
/// passes against the truth.
@Suite struct ShearedTurnTests {
    static let size = PixelSize(width: 150, height: 100)

    static let turns: [Rotation] = [
        Rotation(degrees: 2, window: .largestUpright),
        Rotation(degrees: -13, window: .wholeCanvas),
        Rotation(degrees: 45, window: .largestUpright),
        Rotation(degrees: -45, window: .rect(PixelRect(x: -20, y: 30, width: 120, height: 90))),
        Rotation(degrees: 0.3, window: .rect(PixelRect(x: 4, y: 3, width: 140, height: 17))),
        Rotation(degrees: 30, window: .wholeCanvas),
        Rotation(degrees: 0, window: .rect(PixelRect(x: 10, y: 10, width: 50, height: 40))),
        Rotation(degrees: -7, window: .wholeCanvas, fill: RGBColor(red: 1, green: 0.5, blue: 0)),
        Rotation(degrees: 40, window: .rect(PixelRect(x: -30, y: -10, width: 160, height: 90)), fill: .black),
    ]

    /// The shears' positions, followed pass by pass, land where the turn's map says.
    @Test(arguments: turns)
    func theShearsComposeToTheTurn(rotation: Rotation) throws {
        let map = PixelAffine(rotation, on: Self.size)
        let turn = try #require(ShearedTurn(map: map))
        func real(_ fixed: Int64) -> Double { Double(fixed) / BicubicSampler.unit }
        for (x, y) in [(0, 0), (17, 3), (149, 99), (-5, 60), (80, -12)] {
            let u = Double(x) + real(turn.thirdPass(row: y))
            // I2's row y at column u, I1's column u at row v, the input's row v at column s.
            let v = Double(y) + real(turn.beta) * u + real(turn.columnOffset)
            let s = u + real(turn.alpha) * v + real(turn.rowOffset)
            #expect(abs(s - map.x(x, y)) < 1e-6 && abs(v - map.y(x, y)) < 1e-6, "\(rotation.degrees)° at \(x), \(y)")
        }
    }

    @Test func onlyTurnsUpTo45DegreesAreShears() {
        for (degrees, sheared) in [
            (44.9, true), (-45.0, true), (45.1, false), (90, false), (-135, false), (180, false),
        ] {
            let map = PixelAffine(Rotation(degrees: degrees, window: .wholeCanvas), on: Self.size)
            #expect((ShearedTurn(map: map) != nil) == sheared, "\(degrees)°")
        }
        let mirrored = PixelAffine(Orientation.upMirrored, on: Self.size)
        #expect(ShearedTurn(map: mirrored) == nil)
    }

    /// In 128ths summing to 128: whole-pixel positions copy the pixel, flat areas stay flat,
    /// half-way is symmetric.
    @Test func theWeightsAreCatmullRomIn128ths() {
        #expect(ShearKernels.table.count == 257)
        #expect(ShearKernels.table.allSatisfy { $0.wrappedSum() == 128 })
        #expect(ShearKernels.table[0] == SIMD4(0, 128, 0, 0))
        #expect(ShearKernels.table[256] == SIMD4(0, 0, 128, 0))
        #expect(ShearKernels.table[128] == SIMD4(-8, 72, 72, -8))
        // The wrapped 16-bit sums stay in range: the lobes, at their worst, on codes 0 and 255.
        for w in ShearKernels.table {
            let positive = (0..<4).map { max(Int(w[$0]), 0) }.reduce(0, +)
            let negative = (0..<4).map { min(Int(w[$0]), 0) }.reduce(0, +)
            #expect(negative * 255 + 64 * 128 >= 0 && positive * 255 + 64 * 128 + 64 < 65536)
        }
    }

    /// Band, tiles in memory and tiles in a file: each output code is exactly the three passes'
    /// formulas written out one pixel at a time.
    @Test(arguments: turns)
    func everyWayOfHoldingTheInputIsTheNaivePasses(rotation: Rotation) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let image = Self.noise(Self.size)
        let canvas = PixelRect(size: Self.size)
        let window = rotation.windowRect(on: Self.size)
        let step = ResampleStep(
            map: PixelAffine(rotation, on: Self.size), canvas: canvas, size: window.size, fill: rotation.fill)
        let output = PixelRect(size: window.size)
        let input = step.inputRegion(for: output)
        let expected = Self.naive(image, step: step, output: output)
        for (available, spillRoom) in [(1 << 30, 1 << 30), (1, 1 << 30), (1, 1)] {
            let plan = ResamplePlan.plan(
                step: step, input: input, output: output, height: 16, available: available, spillRoom: spillRoom,
                space: .codes)
            #expect(plan.method == .shears)
            let rows = ShearedRows(
                upstream: CodeImageRows(image, width: Self.size.width, region: input), step: step, output: output,
                plan: plan, spillDirectory: folder.path, isCancelled: { false })
            var made = [UInt8](repeating: 0, count: output.width * output.height * 3)
            try made.withUnsafeMutableBufferPointer { buffer in
                for y in 0..<output.height { try rows.nextCodes(into: buffer.baseAddress! + y * output.width * 3) }
            }
            let wrong = zip(made, expected).filter { $0 != $1 }.count
            #expect(wrong == 0, "\(rotation.degrees)° \(plan): \(wrong) codes differ")
        }
    }

    /// What the three passes cost in accuracy: against the truth, 0.6 to 1.4 dB under the 2D
    /// sampler here; a change that loses more than 2 dB fails. A real photo, blurred by a
    /// Gaussian (which commutes with a turn) and taken at every 4th pixel, is the input; the
    /// truth is the same blurred photo read at the turned positions, at 4× the resolution, where
    /// a Lanczos-3 interpolation of it is as near exact as needed.
    @Test(arguments: [2.0, -9, 31])
    func threePassesAreWithinTwoDecibelsOf2DBicubic(degrees: Double) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let photo = try DecodedImage(path: Fixtures.exifSample("gps/DSCN0010.jpg").path)
        let (width, height) = (480, 360)
        let kernel = (-6...6).map { exp(-Double($0 * $0) / 8) }  // σ = 2 pixels
        let norm = kernel.reduce(0, +)
        func blurred(_ source: (Int, Int, Int) -> Double, across: Bool) -> [Double] {
            var out = [Double](repeating: 0, count: width * height * 3)
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<3 {
                        var sum = 0.0
                        for (i, w) in kernel.enumerated() {
                            sum += w * (across ? source(x + i - 6, y, c) : source(x, y + i - 6, c))
                        }
                        out[(y * width + x) * 3 + c] = sum / norm
                    }
                }
            }
            return out
        }
        let rows = blurred(
            { x, y, c in Double(photo.pixels[(y * photo.width + min(max(x, 0), width - 1)) * 3 + c]) }, across: true)
        let blur = blurred({ x, y, c in rows[(min(max(y, 0), height - 1) * width + x) * 3 + c] }, across: false)
        func lanczos(_ p: Double, _ tap: (Int) -> Double) -> Double {
            let base = Int(p.rounded(.down))
            var sum = 0.0
            for i in (base - 2)...(base + 3) { sum += Self.lanczos3(p - Double(i)) * tap(i) }
            return sum
        }
        /// The blurred photo at (x, y), pixel centres at whole numbers.
        func at(_ x: Double, _ y: Double, _ c: Int) -> Double {
            lanczos(y) { row in
                lanczos(x) { blur[(min(max(row, 0), height - 1) * width + min(max($0, 0), width - 1)) * 3 + c] }
            }
        }
        // A small pixel (x, y) has its centre at (4x + 1.5, 4y + 1.5) in the photo's pixels.
        let size = PixelSize(width: width / 4, height: height / 4)
        var small: [UInt8] = []
        for y in 0..<size.height {
            for x in 0..<size.width {
                for c in 0..<3 {
                    small.append(UInt8(min(max(at(Double(4 * x) + 1.5, Double(4 * y) + 1.5, c), 0), 255).rounded()))
                }
            }
        }
        let window = Rotation(degrees: degrees, window: .largestUpright).windowRect(on: size)
        let map = PixelAffine(Rotation(degrees: degrees, window: .rect(window)), on: size)
        var truth: [Double] = []
        for y in 0..<window.height {
            for x in 0..<window.width {
                let (sx, sy) = (map.x(x, y), map.y(x, y))
                for c in 0..<3 { truth.append(min(max(at(4 * sx + 1.5, 4 * sy + 1.5, c), 0), 255)) }
            }
        }
        // Both samplers on the same codes, in tiles (the 2D sampler sizes its blocks itself, so
        // one plan serves both).
        let step = ResampleStep(map: map, canvas: PixelRect(size: size), size: window.size, fill: nil)
        let output = PixelRect(size: window.size)
        let input = step.inputRegion(for: output)
        func made(_ method: ResamplePlan.Method) throws -> DecodedImage {
            var plan = ResamplePlan.plan(
                step: step, input: input, output: output, height: 16, available: 1, spillRoom: 1 << 30, space: .codes)
            plan.method = method
            let source = CodeImageRows(small, width: size.width, region: input)
            let rows: any CodeRowSource =
                method == .shears
                ? ShearedRows(
                    upstream: source, step: step, output: output, plan: plan, spillDirectory: folder.path,
                    isCancelled: { false })
                : ResampledRows(
                    upstream: source, step: step, output: output, plan: plan, spillDirectory: folder.path,
                    isCancelled: { false })
            var pixels = [UInt8](repeating: 0, count: output.width * output.height * 3)
            try pixels.withUnsafeMutableBufferPointer { buffer in
                for y in 0..<output.height { try rows.nextCodes(into: buffer.baseAddress! + y * output.width * 3) }
            }
            return DecodedImage(width: output.width, height: output.height, pixels: pixels)
        }
        let sheared = try made(.shears)
        let bicubic = try made(.bicubic)
        let shearedPSNR = RotationReference.psnr(sheared, truth)
        let bicubicPSNR = RotationReference.psnr(bicubic, truth)
        #expect(
            shearedPSNR > bicubicPSNR - 2 && shearedPSNR > 37,
            "\(degrees)°: shears \(shearedPSNR) dB, 2D bicubic \(bicubicPSNR) dB")
    }

    /// sinc(x) · sinc(x / 3) for |x| < 3.
    static func lanczos3(_ x: Double) -> Double {
        let x = abs(x)
        if x < 1e-12 { return 1 }
        if x >= 3 { return 0 }
        return 3 * sin(.pi * x) * sin(.pi * x / 3) / (.pi * .pi * x * x)
    }

    /// Codes with no structure, so any tap read from the wrong place shows.
    static func noise(_ size: PixelSize) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<(size.area * 3)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    /// The three passes, one output code at a time, each tap clamped to the image; then, with
    /// a fill, each code mixed with it by how much of a pixel around its position lies inside
    /// the image, rounded to the nearest (ties to even).
    static func naive(_ image: [UInt8], step: ResampleStep, output: PixelRect) -> [UInt8] {
        let turn = ShearedTurn(map: step.map)!
        let (width, height) = (step.canvas.width, step.canvas.height)
        func filtered(_ position: Int64, _ tap: (Int) -> Int) -> UInt8 {
            let (shift, w) = ShearKernels.tap(position)
            var sum: Int32 = 0
            for k in 0..<ShearKernels.taps { sum += Int32(w[k]) * Int32(tap(shift + k - 1)) }
            return ShearKernels.code(sum)
        }
        func first(_ u: Int, _ r: Int, _ c: Int) -> Int {
            let row = min(max(r, 0), height - 1)
            let code = filtered(turn.firstPass(row: row)) { (tap: Int) -> Int in
                let column = min(max(u + tap, 0), width - 1)
                return Int(image[(row * width + column) * 3 + c])
            }
            return Int(code)
        }
        func second(_ u: Int, _ v: Int, _ c: Int) -> Int {
            Int(filtered(turn.secondPass(column: u)) { first(u, v + $0, c) })
        }
        /// How much of [s − ½, s + ½] lies in the image's [−½, size − ½], in floats as the mix is.
        func inside(_ s: Double, _ size: Int) -> Float {
            Float(min(max(0, min(s + 0.5, Double(size) - 0.5) - max(s - 0.5, -0.5)), 1))
        }
        var out: [UInt8] = []
        for y in output.y..<output.maxY {
            for x in output.x..<output.maxX {
                let alpha = inside(step.map.x(x, y), width) * inside(step.map.y(x, y), height)
                for c in 0..<3 {
                    let code = filtered(turn.thirdPass(row: y)) { second(x + $0, y, c) }
                    guard let fill = step.fill, alpha < 1 else {
                        out.append(code)
                        continue
                    }
                    let fillCode = Float(Double([fill.red, fill.green, fill.blue][c]) * 255)
                    let value = Float(code) * alpha + fillCode * (1 - alpha)
                    out.append(UInt8(min(max(value, 0), 255).rounded(.toNearestOrEven)))
                }
            }
        }
        return out
    }
}

/// An image's codes as a row stage delivers them (linear light, which `UpstreamCodes` quantises
/// back to the same codes), rows of `region` top to bottom.
final class CodeImageRows: LinearRowSource {
    let region: PixelRect
    private let image: [UInt8]
    private let width: Int
    private var next: Int

    init(_ image: [UInt8], width: Int, region: PixelRect) {
        self.image = image
        self.region = region
        self.width = width
        next = region.y
    }

    func nextRow(into row: UnsafeMutablePointer<Float>) throws {
        precondition(next < region.maxY)
        for x in 0..<region.width {
            for c in 0..<3 {
                row[x * 3 + c] = SRGB.decodeTable[Int(image[(next * width + region.x + x) * 3 + c])]
            }
        }
        next += 1
    }
}
