/// A sheared turn's fill: each output pixel mixed with the fill by how much of a pixel-sized box
/// around its position lies inside the image, as the 2D sampler's `EdgeFill` mixes its samples,
/// so the turned edges are anti-aliased the same way. The pixels wholly inside, most of a row,
/// are found by solving where the row's positions enter and leave the image, and left alone.
struct ShearedFill {
    let map: PixelAffine
    let width: Int
    let height: Int
    /// The fill in codes, 0…255.
    let codes: SIMD3<Float>

    init?(_ step: ResampleStep) {
        guard let fill = step.fill else { return nil }
        map = step.map
        (width, height) = (step.canvas.width, step.canvas.height)
        codes = SIMD3(Float(Double(fill.red) * 255), Float(Double(fill.green) * 255), Float(Double(fill.blue) * 255))
    }

    /// Mixes pixels `columns` of output row `y` (in `target`, its first pixel first).
    func mix(row y: Int, columns: Range<Int>, into target: UnsafeMutablePointer<UInt8>) {
        let inside = self.inside(row: y, columns: columns)
        for range in [columns.lowerBound..<inside.lowerBound, inside.upperBound..<columns.upperBound] {
            for x in range {
                let alpha =
                    BicubicSampler.coverage(map.x(x, y), size: width)
                    * BicubicSampler.coverage(map.y(x, y), size: height)
                guard alpha < 1 else { continue }
                let pixel = target + (x - columns.lowerBound) * 3
                for channel in 0..<3 {
                    let value = Float(pixel[channel]) * alpha + codes[channel] * (1 - alpha)
                    pixel[channel] = UInt8(min(max(value, 0), 255).rounded(.toNearestOrEven))
                }
            }
        }
    }

    /// Columns of row `y` (within `columns`) whose positions lie inside the image by at least
    /// half a pixel each way, so their boxes are wholly inside; a hair's margin leaves the
    /// pixels on the boundary to the exact test.
    func inside(row y: Int, columns: Range<Int>) -> Range<Int> {
        /// Where slope · x + offset lies in 0…limit.
        func solve(_ slope: Double, _ offset: Double, _ limit: Double) -> (Double, Double) {
            if abs(slope) < 1e-12 { return (0...limit).contains(offset) ? (-.infinity, .infinity) : (1, 0) }
            let (a, b) = (-offset / slope, (limit - offset) / slope)
            return (min(a, b), max(a, b))
        }
        let across = solve(map.a, map.b * Double(y) + map.tx, Double(width - 1))
        let down = solve(map.c, map.d * Double(y) + map.ty, Double(height - 1))
        let low = max(max(across.0, down.0) + 1e-6, Double(columns.lowerBound))
        let high = min(min(across.1, down.1) - 1e-6, Double(columns.upperBound - 1))
        guard low <= high else { return columns.lowerBound..<columns.lowerBound }
        return Int(low.rounded(.up))..<(Int(high.rounded(.down)) + 1)
    }
}
