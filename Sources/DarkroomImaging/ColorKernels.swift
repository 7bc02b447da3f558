/// A strip of the output in linear light: `rows` rows of `width` interleaved RGB floats,
/// whose first row is output row `firstRow`.
public struct LinearStrip {
    public var pixels: UnsafeMutableBufferPointer<Float>
    public var width: Int
    public var rows: Int
    public var firstRow: Int

    public init(pixels: UnsafeMutableBufferPointer<Float>, width: Int, rows: Int, firstRow: Int) {
        precondition(pixels.count >= width * rows * 3)
        self.pixels = pixels
        self.width = width
        self.rows = rows
        self.firstRow = firstRow
    }
}

/// The per-pixel math of each color operation. Loops run over raw buffers with no
/// allocation or dispatch per pixel, so the optimiser can vectorise them.
public enum ColorKernels {
    public static func apply(_ step: PlacedOperation, to strip: LinearStrip) {
        switch step.operation {
        case .exposure(let ev):
            exposure(ev: ev, strip)
        case .sepia(let intensity):
            sepia(intensity: intensity, strip)
        case .vignette(let intensity, let radius):
            vignette(
                intensity: intensity, radius: radius, canvas: step.canvas,
                offsetX: step.offsetX, offsetY: step.offsetY + strip.firstRow, strip)
        case .crop, .rotate, .orient, .gaussianBlur, .unsharpMask:
            break  // geometry and neighbourhoods: run by their own pipeline stages
        case .colorControls(let saturation, let brightness, let contrast):
            colorControls(saturation: saturation, brightness: brightness, contrast: contrast, strip)
        case .colorMatrix(let matrix):
            colorMatrix(matrix, strip)
        case .posterize(let levels):
            posterize(levels: levels, strip)
        case .photoEffect(let effect, let intensity):
            photoEffect(effect, intensity: intensity, strip)
        case .chromaKey(let parameters):
            chromaKey(parameters, strip)
        case .filter(let step):
            filter(step, strip)
        }
    }

    static func exposure(ev: Float, _ strip: LinearStrip) {
        let gain = Float(pow(2, Double(ev)))
        let pixels = strip.pixels
        for index in 0..<(strip.width * strip.rows * 3) {
            pixels[index] *= gain
        }
    }

    static func sepia(intensity: Float, _ strip: LinearStrip) {
        // Full intensity (the usual case) skips the mix: `c·0 + s·1` is `s` for every finite c.
        if intensity == 1 {
            sepia(strip, mix: false, intensity: 1)
        } else {
            sepia(strip, mix: true, intensity: intensity)
        }
    }

    @inline(__always)
    private static func sepia(_ strip: LinearStrip, mix: Bool, intensity: Float) {
        guard let pixels = strip.pixels.baseAddress else { return }
        let keep = 1 - intensity
        for pixel in 0..<(strip.width &* strip.rows) {
            let base = pixels + pixel &* 3
            let r = base[0]
            let g = base[1]
            let b = base[2]
            let sr = clampUnit(0.393 * r + 0.769 * g + 0.189 * b)
            let sg = clampUnit(0.349 * r + 0.686 * g + 0.168 * b)
            let sb = clampUnit(0.272 * r + 0.534 * g + 0.131 * b)
            base[0] = mix ? r * keep + sr * intensity : sr
            base[1] = mix ? g * keep + sg * intensity : sg
            base[2] = mix ? b * keep + sb * intensity : sb
        }
    }

    /// `offsetY` is the canvas row of the strip's first row.
    static func vignette(
        intensity: Float, radius: Float, canvas: PixelSize, offsetX: Int, offsetY: Int, _ strip: LinearStrip
    ) {
        let centreX = Float(canvas.width) / 2
        let centreY = Float(canvas.height) / 2
        let halfDiagonal = Float(Double(canvas.width * canvas.width + canvas.height * canvas.height).squareRoot() / 2)
        let reach = halfDiagonal * radius
        // A zero radius vignettes everything; the scale then saturates t at 1 (no 0/0).
        let scale: Float = reach > 0 ? 1 / reach : .infinity
        guard let pixels = strip.pixels.baseAddress else { return }
        let startX = Float(offsetX) + 0.5 - centreX
        // Column `mirror − x` lies as far right of the centre as `x` lies left: its dx is
        // exactly −dx, so it has the same factor.
        let mirror = canvas.width - 1 - 2 * offsetX
        let split = min(max(0, (mirror + 1) / 2), strip.width)  // the first column with dx ≥ 0
        let firstMirrored = min(max(0, mirror - strip.width + 1), split)
        // Factors for a row first, in a contiguous loop the compiler vectorises (square
        // roots included), then one multiply per sample.
        withUnsafeTemporaryAllocation(of: Float.self, capacity: strip.width) { factors in
            for row in 0..<strip.rows {
                let dy = Float(offsetY + row) + 0.5 - centreY
                let dy2 = dy * dy
                @inline(__always) func compute(_ columns: Range<Int>) {
                    // Int32 columns: SSE converts 32-bit integers to floats four at a time,
                    // 64-bit ones only one by one. (Strips are far narrower than 2³¹.)
                    for x in Int32(
                        truncatingIfNeeded: columns.lowerBound)..<Int32(truncatingIfNeeded: columns.upperBound)
                    {
                        let dx = startX + Float(x)
                        let scaled = (dx * dx + dy2).squareRoot() * scale
                        // NaN (0 · ∞ at the centre with radius 0) fails the comparison and saturates too.
                        let t = scaled < 1 ? scaled : 1
                        let s = t * t * (3 - 2 * t)
                        let factor = 1 - intensity * s
                        factors[Int(x)] = factor > 0 ? factor : 0
                    }
                }
                // Right of the centre, then left columns whose mirror is outside the strip;
                // the rest are copies, which halves the square roots of a centred strip.
                compute(split..<strip.width)
                compute(0..<firstMirrored)
                for x in firstMirrored..<split {
                    factors[x] = factors[mirror &- x]
                }
                // Wrapping index arithmetic: overflow checks would keep this loop scalar.
                let rowPixels = pixels + row &* strip.width &* 3
                for x in 0..<strip.width {
                    let factor = factors[x]
                    let base = x &* 3
                    rowPixels[base] *= factor
                    rowPixels[base &+ 1] *= factor
                    rowPixels[base &+ 2] *= factor
                }
            }
        }
    }

    /// `min(max(value, 0), 1)`, NaN staying NaN, written so that it compiles to one
    /// `maxps` and one `minps` (Swift's `max` also orders −0 below +0, which costs a blend).
    @inline(__always)
    static func clampUnit(_ value: Float) -> Float {
        let low = value < 0 ? 0 : value
        return low > 1 ? 1 : low
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
