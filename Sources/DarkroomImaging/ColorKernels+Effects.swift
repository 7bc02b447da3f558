import Synchronization

/// The color-grading kernels: colorControls, colorMatrix, posterize, photoEffect and
/// chromaKey. Like the others they loop over the raw strip with no allocation or dynamic
/// dispatch per pixel; anything costly (transfer functions, tone curves) is computed once
/// per strip or once per process into a table.
extension ColorKernels {
    /// `Y = luma·c; c = mix(Y, c, saturation); c += brightness; c = (c − ½)·contrast + ½`.
    static func colorControls(saturation: Float, brightness: Float, contrast: Float, _ strip: LinearStrip) {
        guard let pixels = strip.pixels.baseAddress else { return }
        let (wr, wg, wb) = ColorMatrix.lumaWeights
        for pixel in 0..<(strip.width * strip.rows) {
            let base = pixel * 3
            let r = pixels[base]
            let g = pixels[base + 1]
            let b = pixels[base + 2]
            let y = wr * r + wg * g + wb * b
            pixels[base] = (y + (r - y) * saturation + brightness - 0.5) * contrast + 0.5
            pixels[base + 1] = (y + (g - y) * saturation + brightness - 0.5) * contrast + 0.5
            pixels[base + 2] = (y + (b - y) * saturation + brightness - 0.5) * contrast + 0.5
        }
    }

    /// `out = M·c + offset`, unclamped (the final encode clamps).
    static func colorMatrix(_ matrix: ColorMatrix, _ strip: LinearStrip) {
        guard let pixels = strip.pixels.baseAddress else { return }
        let m = matrix.rows
        // Locals, so the loop reads registers rather than an array per pixel.
        let m00 = m[0]
        let m01 = m[1]
        let m02 = m[2]
        let m10 = m[3]
        let m11 = m[4]
        let m12 = m[5]
        let m20 = m[6]
        let m21 = m[7]
        let m22 = m[8]
        let o0 = matrix.offset.red
        let o1 = matrix.offset.green
        let o2 = matrix.offset.blue
        for pixel in 0..<(strip.width * strip.rows) {
            let base = pixel * 3
            let r = pixels[base]
            let g = pixels[base + 1]
            let b = pixels[base + 2]
            pixels[base] = m00 * r + m01 * g + m02 * b + o0
            pixels[base + 1] = m10 * r + m11 * g + m12 * b + o1
            pixels[base + 2] = m20 * r + m21 * g + m22 * b + o2
        }
    }

    /// Each channel's sRGB-encoded value `v` becomes `round(v·n)/n`, `n = levels − 1`.
    ///
    /// sRGB encoding is monotonic, so instead of encoding every pixel we move the rounding
    /// boundaries into linear light: level `k` covers `c ≥ toLinear((k − ½)/n)` up to the next
    /// boundary. A pixel's level is the number of boundaries at or below it, found by a fixed
    /// eight-step binary search over 256 slots (unused slots hold +∞); the output is the
    /// level's linear value `toLinear(k/n)`. Out-of-range values land on the end levels, NaN on 0.
    static func posterize(levels: Int, _ strip: LinearStrip) {
        precondition((2...256).contains(levels), "posterize levels must be 2…256")
        guard let pixels = strip.pixels.baseAddress else { return }
        PosterizeTables.table(levels: levels).withUnsafeBufferPointer { table in
            let boundaries = table.baseAddress!
            let outputs = boundaries + 256
            for index in 0..<(strip.width * strip.rows * 3) {
                let value = pixels[index]
                var level = 0
                var step = 128
                while step > 0 {
                    if boundaries[level + step - 1] <= value { level += step }
                    step >>= 1
                }
                pixels[index] = outputs[level]
            }
        }
    }

    /// `m = clamp(look.matrix · c, 0, 1)`, each channel through its tone-curve table, then
    /// mixed with the input by `intensity`.
    static func photoEffect(_ effect: PhotoEffect, intensity: Float, _ strip: LinearStrip) {
        guard let pixels = strip.pixels.baseAddress else { return }
        let m = effect.look.matrix.rows
        let m00 = m[0]
        let m01 = m[1]
        let m02 = m[2]
        let m10 = m[3]
        let m11 = m[4]
        let m12 = m[5]
        let m20 = m[6]
        let m21 = m[7]
        let m22 = m[8]
        let keep = 1 - intensity
        PhotoEffectTables.table(for: effect).withUnsafeBufferPointer { table in
            let red = table.baseAddress!
            let green = red + PhotoEffectTables.stride
            let blue = green + PhotoEffectTables.stride
            for pixel in 0..<(strip.width * strip.rows) {
                let base = pixels + pixel * 3
                let r = base[0]
                let g = base[1]
                let b = base[2]
                let outR = PhotoEffectTables.lookup(red, m00 * r + m01 * g + m02 * b)
                let outG = PhotoEffectTables.lookup(green, m10 * r + m11 * g + m12 * b)
                let outB = PhotoEffectTables.lookup(blue, m20 * r + m21 * g + m22 * b)
                base[0] = r * keep + outR * intensity
                base[1] = g * keep + outG * intensity
                base[2] = b * keep + outB * intensity
            }
        }
    }

    /// Pixels whose linear-light distance to the key color is below the threshold become the
    /// background color. Squared distances are compared, so there is no square root per pixel.
    static func chromaKey(_ parameters: ChromaKey, _ strip: LinearStrip) {
        guard let pixels = strip.pixels.baseAddress else { return }
        let kr = Float(SRGB.toLinear(Double(parameters.key.red)))
        let kg = Float(SRGB.toLinear(Double(parameters.key.green)))
        let kb = Float(SRGB.toLinear(Double(parameters.key.blue)))
        let br = Float(SRGB.toLinear(Double(parameters.background.red)))
        let bg = Float(SRGB.toLinear(Double(parameters.background.green)))
        let bb = Float(SRGB.toLinear(Double(parameters.background.blue)))
        let limit = parameters.threshold * parameters.threshold
        for pixel in 0..<(strip.width * strip.rows) {
            let base = pixels + pixel * 3
            let dr = base[0] - kr
            let dg = base[1] - kg
            let db = base[2] - kb
            if dr * dr + dg * dg + db * db < limit {
                base[0] = br
                base[1] = bg
                base[2] = bb
            }
        }
    }
}

/// Posterize's boundaries and level values for each level count, built on first use and
/// kept: kernels run once per strip or row, and 512 `pow` calls each time would cost a
/// noticeable share of a narrow row. At most 255 tables of 2 KiB.
enum PosterizeTables {
    private static let cache = Mutex<[Int: [Float]]>([:])

    /// 256 boundaries (`toLinear((k + ½)/n)`, then +∞) followed by 256 outputs (`toLinear(k/n)`).
    static func table(levels: Int) -> [Float] {
        if let table = cache.withLock({ $0[levels] }) { return table }
        let steps = levels - 1
        var table = [Float](repeating: 1, count: 512)
        for level in 0..<256 {
            table[level] = level < steps ? Float(SRGB.toLinear((Double(level) + 0.5) / Double(steps))) : .infinity
            if level <= steps { table[256 + level] = Float(SRGB.toLinear(Double(level) / Double(steps))) }
        }
        // Two threads may both build it; they build the same table.
        cache.withLock { $0[levels] = table }
        return table
    }
}

/// Each look's tone curves, composed with the sRGB transfer functions so the kernel goes
/// straight from linear input to linear output: for each channel, `size + 1` samples of
/// `toLinear(curve(fromLinear(i / size)))`, read with linear interpolation. Built once per
/// process on first use (a `static let` is initialised lazily and exactly once).
enum PhotoEffectTables {
    /// 4096 intervals keep the interpolation error below 1/100 of an 8-bit code.
    static let size = 4096
    static let stride = size + 1

    static let mono = build(.mono)
    static let noir = build(.noir)
    static let tonal = build(.tonal)
    static let chrome = build(.chrome)
    static let fade = build(.fade)
    static let instant = build(.instant)
    static let process = build(.process)
    static let transfer = build(.transfer)

    static func table(for effect: PhotoEffect) -> [Float] {
        switch effect {
        case .mono: mono
        case .noir: noir
        case .tonal: tonal
        case .chrome: chrome
        case .fade: fade
        case .instant: instant
        case .process: process
        case .transfer: transfer
        }
    }

    static func build(_ effect: PhotoEffect) -> [Float] {
        let look = effect.look
        var table = [Float](repeating: 0, count: 3 * stride)
        for channel in 0..<3 {
            for index in 0...size {
                let encoded = SRGB.fromLinear(Double(index) / Double(size))
                let shaped = min(max(look.curve(encoded, channel: channel), 0), 1)
                table[channel * stride + index] = Float(SRGB.toLinear(shaped))
            }
        }
        return table
    }

    /// The curve at `value`, clamped to [0, 1] first (NaN reads as 0).
    @inline(__always)
    static func lookup(_ table: UnsafePointer<Float>, _ value: Float) -> Float {
        var x = value > 0 ? value : 0
        x = x < 1 ? x : 1
        let position = x * Float(size)
        let index = min(Int(position), size - 1)
        let fraction = position - Float(index)
        let low = table[index]
        return low + (table[index + 1] - low) * fraction
    }
}
