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

/// The per-pixel math of each colour operation. Loops run over raw buffers with no
/// allocation or dispatch per pixel, so the optimiser can vectorise them.
public enum ColorKernels {
    public static func apply(_ step: PlacedOperation, to strip: LinearStrip) {
        switch step.operation {
        case .exposure(let ev):
            exposure(ev: ev, strip)
        case .sepia(let intensity):
            sepia(intensity: intensity, strip)
        case .vignette(let intensity, let radius):
            vignette(intensity: intensity, radius: radius, canvas: step.canvas,
                     offsetX: step.offsetX, offsetY: step.offsetY + strip.firstRow, strip)
        case .crop, .gaussianBlur, .unsharpMask:
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
        let pixels = strip.pixels
        let keep = 1 - intensity
        for pixel in 0..<(strip.width * strip.rows) {
            let base = pixel * 3
            let r = pixels[base], g = pixels[base + 1], b = pixels[base + 2]
            let sr = clampUnit(0.393 * r + 0.769 * g + 0.189 * b)
            let sg = clampUnit(0.349 * r + 0.686 * g + 0.168 * b)
            let sb = clampUnit(0.272 * r + 0.534 * g + 0.131 * b)
            pixels[base] = r * keep + sr * intensity
            pixels[base + 1] = g * keep + sg * intensity
            pixels[base + 2] = b * keep + sb * intensity
        }
    }

    /// `offsetY` is the canvas row of the strip's first row.
    static func vignette(intensity: Float, radius: Float, canvas: PixelSize, offsetX: Int, offsetY: Int, _ strip: LinearStrip) {
        let centreX = Float(canvas.width) / 2, centreY = Float(canvas.height) / 2
        let halfDiagonal = Float(Double(canvas.width * canvas.width + canvas.height * canvas.height).squareRoot() / 2)
        let reach = halfDiagonal * radius
        // A zero radius vignettes everything; the scale then saturates t at 1 (no 0/0).
        let scale: Float = reach > 0 ? 1 / reach : .infinity
        let pixels = strip.pixels
        let startX = Float(offsetX) + 0.5 - centreX
        // Factors for a row first, in a contiguous loop the compiler vectorises (square
        // roots included), then one multiply per sample.
        withUnsafeTemporaryAllocation(of: Float.self, capacity: strip.width) { factors in
            for row in 0..<strip.rows {
                let dy = Float(offsetY + row) + 0.5 - centreY
                let dy2 = dy * dy
                for x in 0..<strip.width {
                    let dx = startX + Float(x)
                    let scaled = (dx * dx + dy2).squareRoot() * scale
                    // NaN (0 · ∞ at the centre with radius 0) fails the comparison and saturates too.
                    let t = scaled < 1 ? scaled : 1
                    let s = t * t * (3 - 2 * t)
                    let factor = 1 - intensity * s
                    factors[x] = factor > 0 ? factor : 0
                }
                let rowBase = row * strip.width * 3
                for x in 0..<strip.width {
                    let factor = factors[x]
                    let base = rowBase + x * 3
                    pixels[base] *= factor
                    pixels[base + 1] *= factor
                    pixels[base + 2] *= factor
                }
            }
        }
    }

    @inline(__always)
    static func clampUnit(_ value: Float) -> Float {
        min(max(value, 0), 1)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
