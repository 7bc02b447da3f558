/// Input pixels a geometric step samples from: rows of linear-light pixels, four floats each
/// (r, g, b, 0), held in a buffer of `slots` rows, row r (input coordinates) at slot (r − `baseRow`) mod `slots`.
/// `columns` and `rows` are the input pixels present; taps are clamped into them, and the
/// plan makes sure they hold every tap a requested output pixel needs once clamped to the image.
struct SampleWindow {
    var pixels: UnsafePointer<Float>
    /// Input column of the buffer's first column.
    var x: Int
    var stride: Int
    var baseRow: Int
    var slots: Int
    var columns: ClosedRange<Int>
    var rows: ClosedRange<Int>

    @inline(__always) func row(_ y: Int) -> UnsafePointer<Float> {
        pixels + ((y - baseRow) % slots) * stride - x * 4
    }
}

/// What a geometric step interpolates.
public enum SampleSpace: String, Sendable, Equatable {
    /// Linear light: colour operations run on the same render, and they work in linear light.
    case linear
    /// The 8-bit codes as the input encodes them (sRGB-like), as libvips interpolates: when the
    /// step is all the render does, its output codes come from the input's with no trip through
    /// linear light and back.
    case codes
}

/// Catmull-Rom bicubic (Keys' cubic convolution, a = −½), 4×4 taps, edges extended.
///
/// Why this kernel: it interpolates (at whole-pixel positions its weights are 0, 1, 0, 0), so a
/// turn by 0° or a quarter turn reproduces the pixels exactly and a 2° straighten keeps the
/// photo as sharp as it was; it is third-order accurate, unlike a B-spline or Mitchell filter,
/// which soften; and its 16 taps keep the cost near a plain crop's, where Lanczos-3 needs 36
/// for no visible gain at 1:1 scale. Its slight overshoot at hard edges is clamped by the encoder.
/// Where a fill is given, a sample is mixed with it by how much of a pixel-sized box around
/// the sample lies inside the image, so the turned edges are anti-aliased.
struct BicubicSampler {
    let map: PixelAffine
    let imageWidth: Int
    let imageHeight: Int
    let space: SampleSpace
    /// The fill in `space` (linear light, or codes 0…255), or nil to extend the edges.
    let fill: SIMD3<Float>?
    /// `map` in 32.32 fixed point: sums are exact, so stepping along a row gives every pixel the
    /// position it would get on its own, wherever a strip or block starts.
    private let fixed: (a: Int64, b: Int64, c: Int64, d: Int64, tx: Int64, ty: Int64)
    static let unit = 4_294_967_296.0

    init(map: PixelAffine, imageWidth: Int, imageHeight: Int, space: SampleSpace, fill: RGBColor?) {
        self.map = map
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.space = space
        let value = { (v: Float) in space == .codes ? Float(Double(v) * 255) : Float(SRGB.toLinear(Double(v))) }
        self.fill = fill.map { SIMD3(value($0.red), value($0.green), value($0.blue)) }
        let f = { (value: Double) in Int64((value * Self.unit).rounded()) }
        fixed = (f(map.a), f(map.b), f(map.c), f(map.d), f(map.tx), f(map.ty))
    }

    /// Code i as itself, for sampling in codes.
    static let codeTable: [Float] = (0..<256).map(Float.init)

    /// Decodes `pixels` pixels of 8-bit codes (3 each) into four floats each (r, g, b, 0) in
    /// `space`, the layout `SampleWindow` holds: each tap is one whole 4-float load.
    func decode(_ codes: UnsafePointer<UInt8>, into samples: UnsafeMutablePointer<Float>, pixels: Int) {
        (space == .codes ? Self.codeTable : SRGB.decodeTable).withUnsafeBufferPointer { table in
            let table = table.baseAddress!
            let target = UnsafeMutableRawPointer(samples)
            for pixel in 0..<pixels {
                let code = codes + pixel &* 3
                let value = SIMD4(table[Int(code[0])], table[Int(code[1])], table[Int(code[2])], 0)
                target.storeBytes(of: value, toByteOffset: pixel &* 16, as: SIMD4<Float>.self)
            }
        }
    }

    /// Weights at fractions i/256, the fraction rounded to the nearest (entry 256, weights at
    /// 1, is entry 0 a pixel on): a sample moves at most 1/512 pixel, invisible, and the table
    /// saves the two cubics per pixel that otherwise cost more than the taps. Entry 4i + k holds
    /// weight k four times over, ready to multiply a pixel's r, g, b, 0: a weight taken out of a
    /// vector and spread again at each use is what LLVM turns into a tangle of shuffles and
    /// scalar lanes. 16 KiB, so it stays in the L1 cache beside the taps.
    static let fractionBits = 8
    static let table: [SIMD4<Float>] = (0...(1 << fractionBits)).flatMap {
        let w = weights(Float($0) / Float(1 << fractionBits))
        return [SIMD4(repeating: w.x), SIMD4(repeating: w.y), SIMD4(repeating: w.z), SIMD4(repeating: w.w)]
    }

    /// The four `table` entries for the fraction in the low 32 bits of `position`.
    @inline(__always) static func weights(
        at position: Int64, _ table: UnsafePointer<SIMD4<Float>>
    ) -> UnsafePointer<SIMD4<Float>> {
        let fraction = UInt64(UInt32(truncatingIfNeeded: position)) &+ (1 << (31 - fractionBits))
        return table + Int(truncatingIfNeeded: fraction >> (32 - fractionBits)) &* 4
    }

    static func weights(_ t: Float) -> SIMD4<Float> {
        let t2 = t * t
        let t3 = t2 * t
        return SIMD4(
            0.5 * (-t3 + 2 * t2 - t),
            0.5 * (3 * t3 - 5 * t2 + 2),
            0.5 * (-3 * t3 + 4 * t2 + t),
            0.5 * (t3 - t2))
    }

    /// Byte offsets of a sample's four columns of taps in a row.
    typealias Taps = (Int, Int, Int, Int)

    /// Four pixels of `line` (r, g, b, 0 each, at byte offsets `taps`) weighted across by `w`,
    /// four `table` entries; summed as a tree, so the products need not wait on each other.
    @inline(__always) static func across(
        _ line: UnsafeRawPointer, _ taps: Taps, _ w: UnsafePointer<SIMD4<Float>>
    ) -> SIMD4<Float> {
        let float4 = SIMD4<Float>.self
        let a = line.loadUnaligned(fromByteOffset: taps.0, as: float4) * w[0]
        let b = line.loadUnaligned(fromByteOffset: taps.1, as: float4) * w[1]
        let c = line.loadUnaligned(fromByteOffset: taps.2, as: float4) * w[2]
        let d = line.loadUnaligned(fromByteOffset: taps.3, as: float4) * w[3]
        return (a + b) + (c + d)
    }

    /// The four rows' sums weighted down by `w`, as a tree.
    @inline(__always) static func down(
        _ s0: SIMD4<Float>, _ s1: SIMD4<Float>, _ s2: SIMD4<Float>, _ s3: SIMD4<Float>, _ w: UnsafePointer<SIMD4<Float>>
    ) -> SIMD4<Float> {
        (s0 * w[0] + s1 * w[1]) + (s2 * w[2] + s3 * w[3])
    }

    /// Output pixels `columns` of output row `y` into `out`, 3 floats each (linear light).
    func sample(row y: Int, columns: Range<Int>, from window: SampleWindow, into out: UnsafeMutablePointer<Float>) {
        precondition(space == .linear)
        sample(row: y, columns: columns, from: window, into: UnsafeMutableRawPointer(out), as: FloatPixels.self)
    }

    /// Output pixels `columns` of output row `y` into `out`, 3 codes each.
    func sample(row y: Int, columns: Range<Int>, from window: SampleWindow, into out: UnsafeMutablePointer<UInt8>) {
        precondition(space == .codes)
        sample(row: y, columns: columns, from: window, into: UnsafeMutableRawPointer(out), as: CodePixels.self)
    }

    private func sample<Pixels: SampledPixels>(
        row y: Int, columns: Range<Int>, from window: SampleWindow, into out: UnsafeMutableRawPointer,
        as pixels: Pixels.Type
    ) {
        guard !columns.isEmpty else { return }
        Self.table.withUnsafeBufferPointer { table in
            // Two copies of the loop, by type: without a fill (crop mode), no per-pixel test of it.
            if let fill {
                sample(
                    row: y, columns: columns, from: window, into: out, table: table.baseAddress!,
                    fill: EdgeFill(fill: fill, width: imageWidth, height: imageHeight), pixels)
            } else {
                sample(
                    row: y, columns: columns, from: window, into: out, table: table.baseAddress!, fill: NoFill(), pixels
                )
            }
        }
    }

    /// Every pixel but the last is stored whole (one store), its last lane landing on the next
    /// pixel's first byte, which that pixel's own store then overwrites; the last stores just
    /// its three. (The last is sampled outside the loop: a vector used on two paths of a branch
    /// is one LLVM takes apart lane by lane.)
    @inline(__always)
    private func sample<Pixels: SampledPixels, Fill: SampleFill>(
        row y: Int, columns: Range<Int>, from window: SampleWindow, into out: UnsafeMutableRawPointer,
        table: UnsafePointer<SIMD4<Float>>, fill: Fill, _: Pixels.Type
    ) {
        var rows = Rows(
            window: window, lowX: max(0, window.columns.lowerBound),
            highX: min(imageWidth - 1, window.columns.upperBound),
            lowY: max(0, window.rows.lowerBound), highY: min(imageHeight - 1, window.rows.upperBound))
        var sx = fixed.a * Int64(columns.lowerBound) + fixed.b * Int64(y) + fixed.tx
        var sy = fixed.c * Int64(columns.lowerBound) + fixed.d * Int64(y) + fixed.ty
        var target = out
        for _ in 1..<columns.count {
            Pixels.store(sample(sx, sy, &rows, table, fill), at: target)
            sx &+= fixed.a
            sy &+= fixed.c
            target += Pixels.bytes
        }
        Pixels.storeLast(sample(sx, sy, &rows, table, fill), at: target)
    }

    /// The four input rows a sample reads, looked up again only when they change: neighbouring
    /// samples mostly share them.
    struct Rows {
        let window: SampleWindow
        let lowX: Int
        let highX: Int
        let lowY: Int
        let highY: Int
        var rowsOf = Int.min
        var lines: (UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer)

        init(window: SampleWindow, lowX: Int, highX: Int, lowY: Int, highY: Int) {
            (self.window, self.lowX, self.highX, self.lowY, self.highY) = (window, lowX, highX, lowY, highY)
            let first = UnsafeRawPointer(window.row(lowY))
            lines = (first, first, first, first)
        }

        @inline(__always) mutating func at(_ iy: Int) {
            guard iy != rowsOf else { return }
            rowsOf = iy
            lines = (
                UnsafeRawPointer(window.row(min(max(iy - 1, lowY), highY))),
                UnsafeRawPointer(window.row(min(max(iy, lowY), highY))),
                UnsafeRawPointer(window.row(min(max(iy + 1, lowY), highY))),
                UnsafeRawPointer(window.row(min(max(iy + 2, lowY), highY)))
            )
        }
    }

    /// The sample at (sx, sy), 32.32 fixed point.
    @inline(__always)
    private func sample<Fill: SampleFill>(
        _ sx: Int64, _ sy: Int64, _ rows: inout Rows, _ table: UnsafePointer<SIMD4<Float>>, _ fill: Fill
    ) -> SIMD4<Float> {
        // Arithmetic shifts floor; the low 32 bits are the fraction.
        let ix = Int(truncatingIfNeeded: sx >> 32)
        rows.at(Int(truncatingIfNeeded: sy >> 32))
        let wx = Self.weights(at: sx, table)
        let wy = Self.weights(at: sy, table)
        // Only the offsets branch, for the same reason as the last pixel.
        let taps: Taps
        if ix - 1 >= rows.lowX && ix + 2 <= rows.highX {
            let c0 = (ix &- 1) &* 16
            taps = (c0, c0 &+ 16, c0 &+ 32, c0 &+ 48)
        } else {
            taps = Self.clamped(ix: ix, rows.lowX, rows.highX)
        }
        let sum = Self.down(
            Self.across(rows.lines.0, taps, wx), Self.across(rows.lines.1, taps, wx),
            Self.across(rows.lines.2, taps, wx), Self.across(rows.lines.3, taps, wx), wy)
        return fill.mixed(sum, sx: sx, sy: sy)
    }

    /// The taps of a sample that reaches past the window's columns, clamped into them.
    @inline(never)
    private static func clamped(ix: Int, _ lowX: Int, _ highX: Int) -> Taps {
        (
            min(max(ix - 1, lowX), highX) * 16, min(max(ix, lowX), highX) * 16,
            min(max(ix + 1, lowX), highX) * 16, min(max(ix + 2, lowX), highX) * 16
        )
    }

    /// Overlap of [s − ½, s + ½] with the image's [−½, size − ½].
    @inline(__always) static func coverage(_ s: Double, size: Int) -> Float {
        Float(max(0, min(1, min(s + 0.5, Double(size) - 0.5) - max(s - 0.5, -0.5))))
    }
}

/// What shows past the image's edges: the edge pixels extended (taps clamped), or a fill. A type
/// each, so each gets its own copy of the loop and a vector is never picked by a branch on it
/// (a vector used on two paths of a branch is one LLVM takes apart lane by lane).
protocol SampleFill {
    func mixed(_ sample: SIMD4<Float>, sx: Int64, sy: Int64) -> SIMD4<Float>
}

struct NoFill: SampleFill {
    @inline(__always) func mixed(_ sample: SIMD4<Float>, sx: Int64, sy: Int64) -> SIMD4<Float> { sample }
}

/// A sample mixed with the fill by how much of a pixel around (sx, sy) lies inside the image.
struct EdgeFill: SampleFill {
    let fill: SIMD3<Float>
    let width: Int
    let height: Int

    @inline(never) func mixed(_ sample: SIMD4<Float>, sx: Int64, sy: Int64) -> SIMD4<Float> {
        let alpha =
            BicubicSampler.coverage(Double(sx) / BicubicSampler.unit, size: width)
            * BicubicSampler.coverage(Double(sy) / BicubicSampler.unit, size: height)
        if alpha == 0 { return SIMD4(fill, 0) }
        if alpha == 1 { return sample }
        return SIMD4(SIMD3(sample.x, sample.y, sample.z) * alpha + fill * (1 - alpha), 0)
    }
}

/// How `BicubicSampler` stores a sample: its bytes a pixel, one store of four lanes (the fourth
/// overwritten by the next pixel), and the row's last pixel, three lanes only.
protocol SampledPixels {
    static var bytes: Int { get }
    static func store(_ sample: SIMD4<Float>, at target: UnsafeMutableRawPointer)
    static func storeLast(_ sample: SIMD4<Float>, at target: UnsafeMutableRawPointer)
}

/// Three floats a pixel, as sampled.
enum FloatPixels: SampledPixels {
    static var bytes: Int { 12 }

    @inline(__always) static func store(_ sample: SIMD4<Float>, at target: UnsafeMutableRawPointer) {
        target.storeBytes(of: sample, as: SIMD4<Float>.self)
    }

    @inline(__always) static func storeLast(_ sample: SIMD4<Float>, at target: UnsafeMutableRawPointer) {
        target.storeBytes(of: sample.x, as: Float.self)
        target.storeBytes(of: sample.y, toByteOffset: 4, as: Float.self)
        target.storeBytes(of: sample.z, toByteOffset: 8, as: Float.self)
    }
}

/// Three 8-bit codes a pixel: clamped to 0…255 and rounded to the nearest (ties to even).
enum CodePixels: SampledPixels {
    static var bytes: Int { 3 }

    /// Adding 1.5 · 2²³ leaves the rounded whole number in the float's low mantissa bits (the
    /// vector unit's own rounding), with no per-lane conversion calls.
    @inline(__always) static func codes(_ sample: SIMD4<Float>) -> SIMD4<UInt8> {
        var value = sample.replacing(with: 0, where: sample .< 0)
        value.replace(with: 255, where: value .> 255)
        let bits = unsafeBitCast(value + SIMD4(repeating: 12_582_912), to: SIMD4<UInt32>.self)
        return SIMD4<UInt8>(truncatingIfNeeded: bits)
    }

    @inline(__always) static func store(_ sample: SIMD4<Float>, at target: UnsafeMutableRawPointer) {
        target.storeBytes(of: codes(sample), as: SIMD4<UInt8>.self)
    }

    @inline(__always) static func storeLast(_ sample: SIMD4<Float>, at target: UnsafeMutableRawPointer) {
        let codes = codes(sample)
        target.storeBytes(of: codes.x, as: UInt8.self)
        target.storeBytes(of: codes.y, toByteOffset: 1, as: UInt8.self)
        target.storeBytes(of: codes.z, toByteOffset: 2, as: UInt8.self)
    }
}
