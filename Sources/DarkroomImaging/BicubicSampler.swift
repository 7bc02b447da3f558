/// Input pixels a geometric step samples from: rows of linear-light RGB floats held in a
/// buffer of `slots` rows, row r (input coordinates) at slot (r − `baseRow`) mod `slots`.
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
        pixels + ((y - baseRow) % slots) * stride - x * 3
    }
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
    /// Linear-light fill, or nil to extend the edges.
    let fill: SIMD3<Float>?
    /// `map` in 32.32 fixed point: sums are exact, so stepping along a row gives every pixel the
    /// position it would get on its own, wherever a strip or block starts.
    private let fixed: (a: Int64, b: Int64, c: Int64, d: Int64, tx: Int64, ty: Int64)
    static let unit = 4_294_967_296.0

    init(map: PixelAffine, imageWidth: Int, imageHeight: Int, fill: SIMD3<Float>?) {
        self.map = map
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.fill = fill
        let f = { (value: Double) in Int64((value * Self.unit).rounded()) }
        fixed = (f(map.a), f(map.b), f(map.c), f(map.d), f(map.tx), f(map.ty))
    }

    /// Floats a buffer needs past its last pixel: a tap of four pixels is read as four
    /// unaligned 4-float loads, the last reaching one float beyond the fourth pixel.
    static let padding = 4

    /// Weights at fractions i/4096: a sample moves at most 1/4096 pixel, and the table (64 KiB)
    /// saves the two cubics per pixel that otherwise cost more than the taps.
    static let fractionBits = 12
    static let table: [SIMD4<Float>] = (0..<(1 << fractionBits)).map {
        weights(Float($0) / Float(1 << fractionBits))
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

    /// Overlap of [s − ½, s + ½] with the image's [−½, size − ½].
    @inline(__always) static func coverage(_ s: Double, size: Int) -> Float {
        Float(max(0, min(1, min(s + 0.5, Double(size) - 0.5) - max(s - 0.5, -0.5))))
    }

    /// Four neighbouring pixels from `p` weighted across (lanes 0–2 are r, g, b).
    @inline(__always) static func across(_ p: UnsafePointer<Float>, _ w: SIMD4<Float>) -> SIMD4<Float> {
        let raw = UnsafeRawPointer(p)
        var sum = raw.loadUnaligned(as: SIMD4<Float>.self) * w[0]
        sum += raw.loadUnaligned(fromByteOffset: 12, as: SIMD4<Float>.self) * w[1]
        sum += raw.loadUnaligned(fromByteOffset: 24, as: SIMD4<Float>.self) * w[2]
        sum += raw.loadUnaligned(fromByteOffset: 36, as: SIMD4<Float>.self) * w[3]
        return sum
    }

    /// The same for pixels at four clamped columns (near the image's edges).
    @inline(__always) static func across(
        _ line: UnsafePointer<Float>, _ c0: Int, _ c1: Int, _ c2: Int, _ c3: Int, _ w: SIMD4<Float>
    ) -> SIMD4<Float> {
        var sum = SIMD4(line[c0], line[c0 + 1], line[c0 + 2], 0) * w[0]
        sum += SIMD4(line[c1], line[c1 + 1], line[c1 + 2], 0) * w[1]
        sum += SIMD4(line[c2], line[c2 + 1], line[c2 + 2], 0) * w[2]
        sum += SIMD4(line[c3], line[c3 + 1], line[c3 + 2], 0) * w[3]
        return sum
    }

    /// Output pixels `columns` of output row `y` into `out` (3 floats each).
    func sample(row y: Int, columns: Range<Int>, from window: SampleWindow, into out: UnsafeMutablePointer<Float>) {
        let lowX = max(0, window.columns.lowerBound)
        let highX = min(imageWidth - 1, window.columns.upperBound)
        let lowY = max(0, window.rows.lowerBound)
        let highY = min(imageHeight - 1, window.rows.upperBound)
        let shift = 32 - Self.fractionBits
        var sx = fixed.a * Int64(columns.lowerBound) + fixed.b * Int64(y) + fixed.tx
        var sy = fixed.c * Int64(columns.lowerBound) + fixed.d * Int64(y) + fixed.ty
        var target = out
        let table = Self.table
        // Neighbouring samples mostly share their rows: look the four up again only when they change.
        var rowsOf = Int.min
        var line0 = window.row(lowY)
        var line1 = line0
        var line2 = line0
        var line3 = line0
        for _ in columns {
            defer {
                sx &+= fixed.a
                sy &+= fixed.c
                target += 3
            }
            var alpha: Float = 1
            if let fill {
                alpha =
                    Self.coverage(Double(sx) / Self.unit, size: imageWidth)
                    * Self.coverage(Double(sy) / Self.unit, size: imageHeight)
                if alpha == 0 {
                    target[0] = fill.x
                    target[1] = fill.y
                    target[2] = fill.z
                    continue
                }
            }
            // Arithmetic shifts floor; the low 32 bits are the fraction.
            let ix = Int(truncatingIfNeeded: sx >> 32)
            let iy = Int(truncatingIfNeeded: sy >> 32)
            let wx = table[Int(truncatingIfNeeded: UInt32(truncatingIfNeeded: sx) >> shift)]
            let wy = table[Int(truncatingIfNeeded: UInt32(truncatingIfNeeded: sy) >> shift)]
            if iy != rowsOf {
                rowsOf = iy
                line0 = window.row(min(max(iy - 1, lowY), highY))
                line1 = window.row(min(max(iy, lowY), highY))
                line2 = window.row(min(max(iy + 1, lowY), highY))
                line3 = window.row(min(max(iy + 2, lowY), highY))
            }
            var sum: SIMD4<Float>
            if ix - 1 >= lowX && ix + 2 <= highX {
                let start = (ix - 1) * 3
                sum = Self.across(line0 + start, wx) * wy[0]
                sum += Self.across(line1 + start, wx) * wy[1]
                sum += Self.across(line2 + start, wx) * wy[2]
                sum += Self.across(line3 + start, wx) * wy[3]
            } else {
                let c0 = min(max(ix - 1, lowX), highX) * 3
                let c1 = min(max(ix, lowX), highX) * 3
                let c2 = min(max(ix + 1, lowX), highX) * 3
                let c3 = min(max(ix + 2, lowX), highX) * 3
                sum = Self.across(line0, c0, c1, c2, c3, wx) * wy[0]
                sum += Self.across(line1, c0, c1, c2, c3, wx) * wy[1]
                sum += Self.across(line2, c0, c1, c2, c3, wx) * wy[2]
                sum += Self.across(line3, c0, c1, c2, c3, wx) * wy[3]
            }
            if let fill, alpha < 1 {
                let mixed = SIMD3(sum.x, sum.y, sum.z) * alpha + fill * (1 - alpha)
                sum = SIMD4(mixed, 0)
            }
            target[0] = sum.x
            target[1] = sum.y
            target[2] = sum.z
        }
    }
}
