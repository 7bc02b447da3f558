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

    /// Decodes `pixels` pixels of 8-bit sRGB codes (3 each) into four linear floats each
    /// (r, g, b, 0), the layout `SampleWindow` holds: each tap is one whole 4-float load.
    static func decode(_ codes: UnsafePointer<UInt8>, into linear: UnsafeMutablePointer<Float>, pixels: Int) {
        SRGB.decodeTable.withUnsafeBufferPointer { table in
            let table = table.baseAddress!
            let target = UnsafeMutableRawPointer(linear)
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

    /// Overlap of [s − ½, s + ½] with the image's [−½, size − ½].
    @inline(__always) static func coverage(_ s: Double, size: Int) -> Float {
        Float(max(0, min(1, min(s + 0.5, Double(size) - 0.5) - max(s - 0.5, -0.5))))
    }

    /// Four pixels of `line` (r, g, b, 0 each, at byte offsets `c0`…`c3`) weighted across by
    /// `w`, four `table` entries; summed in order.
    @inline(__always) static func across(
        _ line: UnsafeRawPointer, _ c0: Int, _ c1: Int, _ c2: Int, _ c3: Int, _ w: UnsafePointer<SIMD4<Float>>
    ) -> SIMD4<Float> {
        let float4 = SIMD4<Float>.self
        var sum: SIMD4<Float> = line.loadUnaligned(fromByteOffset: c0, as: float4) * w[0]
        sum += line.loadUnaligned(fromByteOffset: c1, as: float4) * w[1]
        sum += line.loadUnaligned(fromByteOffset: c2, as: float4) * w[2]
        sum += line.loadUnaligned(fromByteOffset: c3, as: float4) * w[3]
        return sum
    }

    /// Output pixels `columns` of output row `y` into `out` (3 floats each).
    func sample(row y: Int, columns: Range<Int>, from window: SampleWindow, into out: UnsafeMutablePointer<Float>) {
        guard !columns.isEmpty else { return }
        Self.table.withUnsafeBufferPointer { table in
            // Two copies of the loop: without a fill (crop mode), no per-pixel test of it.
            if let fill {
                sample(row: y, columns: columns, from: window, into: out, table: table.baseAddress!, fill: fill)
            } else {
                sample(row: y, columns: columns, from: window, into: out, table: table.baseAddress!, fill: nil)
            }
        }
    }

    /// Every pixel's four lanes are stored (one store), the fourth landing on the next pixel's
    /// red, which its own store then overwrites; the last pixel stores three floats.
    @inline(__always)
    private func sample(
        row y: Int, columns: Range<Int>, from window: SampleWindow, into out: UnsafeMutablePointer<Float>,
        table: UnsafePointer<SIMD4<Float>>, fill: SIMD3<Float>?
    ) {
        let lowX = max(0, window.columns.lowerBound)
        let highX = min(imageWidth - 1, window.columns.upperBound)
        let lowY = max(0, window.rows.lowerBound)
        let highY = min(imageHeight - 1, window.rows.upperBound)
        let stepX = fixed.a
        let stepY = fixed.c
        var sx = fixed.a * Int64(columns.lowerBound) + fixed.b * Int64(y) + fixed.tx
        var sy = fixed.c * Int64(columns.lowerBound) + fixed.d * Int64(y) + fixed.ty
        var target = UnsafeMutableRawPointer(out)
        let last = UnsafeMutableRawPointer(out + (columns.count - 1) * 3)
        // Neighbouring samples mostly share their rows: look the four up again only when they change.
        var rowsOf = Int.min
        var line0 = UnsafeRawPointer(window.row(lowY))
        var line1 = line0
        var line2 = line0
        var line3 = line0
        while true {
            // Arithmetic shifts floor; the low 32 bits are the fraction.
            let ix = Int(truncatingIfNeeded: sx >> 32)
            let iy = Int(truncatingIfNeeded: sy >> 32)
            if iy != rowsOf {
                rowsOf = iy
                line0 = UnsafeRawPointer(window.row(min(max(iy - 1, lowY), highY)))
                line1 = UnsafeRawPointer(window.row(min(max(iy, lowY), highY)))
                line2 = UnsafeRawPointer(window.row(min(max(iy + 1, lowY), highY)))
                line3 = UnsafeRawPointer(window.row(min(max(iy + 2, lowY), highY)))
            }
            let wx = Self.weights(at: sx, table)
            let wy = Self.weights(at: sy, table)
            var sum: SIMD4<Float>
            if ix - 1 >= lowX && ix + 2 <= highX {
                let c0 = (ix - 1) * 16
                let c1 = c0 + 16
                let c2 = c0 + 32
                let c3 = c0 + 48
                sum = Self.across(line0, c0, c1, c2, c3, wx) * wy[0]
                sum += Self.across(line1, c0, c1, c2, c3, wx) * wy[1]
                sum += Self.across(line2, c0, c1, c2, c3, wx) * wy[2]
                sum += Self.across(line3, c0, c1, c2, c3, wx) * wy[3]
            } else {
                sum = Self.clamped(ix: ix, lines: (line0, line1, line2, line3), lowX, highX, wx, wy)
            }
            if let fill {
                sum = Self.mixed(sum, fill, sx: sx, sy: sy, width: imageWidth, height: imageHeight)
            }
            if target == last {
                target.storeBytes(of: sum.x, as: Float.self)
                target.storeBytes(of: sum.y, toByteOffset: 4, as: Float.self)
                target.storeBytes(of: sum.z, toByteOffset: 8, as: Float.self)
                return
            }
            target.storeBytes(of: sum, as: SIMD4<Float>.self)
            sx &+= stepX
            sy &+= stepY
            target += 12
        }
    }

    /// A sample whose taps reach past the window's columns, clamped into them.
    @inline(never)
    private static func clamped(
        ix: Int, lines: (UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer),
        _ lowX: Int, _ highX: Int, _ wx: UnsafePointer<SIMD4<Float>>, _ wy: UnsafePointer<SIMD4<Float>>
    ) -> SIMD4<Float> {
        let c0 = min(max(ix - 1, lowX), highX) * 16
        let c1 = min(max(ix, lowX), highX) * 16
        let c2 = min(max(ix + 1, lowX), highX) * 16
        let c3 = min(max(ix + 2, lowX), highX) * 16
        var sum = across(lines.0, c0, c1, c2, c3, wx) * wy[0]
        sum += across(lines.1, c0, c1, c2, c3, wx) * wy[1]
        sum += across(lines.2, c0, c1, c2, c3, wx) * wy[2]
        sum += across(lines.3, c0, c1, c2, c3, wx) * wy[3]
        return sum
    }

    /// `sample` mixed with the fill by how much of a pixel around (sx, sy) lies inside the image.
    @inline(never)
    private static func mixed(
        _ sample: SIMD4<Float>, _ fill: SIMD3<Float>, sx: Int64, sy: Int64, width: Int, height: Int
    ) -> SIMD4<Float> {
        let alpha =
            coverage(Double(sx) / unit, size: width) * coverage(Double(sy) / unit, size: height)
        if alpha == 0 { return SIMD4(fill, 0) }
        if alpha == 1 { return sample }
        return SIMD4(SIMD3(sample.x, sample.y, sample.z) * alpha + fill * (1 - alpha), 0)
    }
}
