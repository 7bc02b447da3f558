/// The filter kernel: a `.cube` display LUT on the sRGB-encoded values of each pixel, mixed
/// with the input in linear light by intensity. Each channel is encoded (clamped to [0, 1]),
/// placed on the grid by the table's domain (clamped to its ends), looked up (tetrahedral
/// interpolation for a 3D table, linear for 1D curves), clamped to [0, 1] and decoded again.
/// The transfer functions are read from two shared tables, so a pixel costs no `pow`.
extension ColorKernels {
    static func filter(_ step: FilterStep, _ strip: LinearStrip) {
        // RenderGeometry refuses a filter whose table was not loaded.
        guard let table = step.table, let pixels = strip.pixels.baseAddress else { return }
        let count = strip.width * strip.rows
        let intensity = step.intensity
        let size = table.size
        let last = Float(size - 1)
        let low = SIMD4(table.domainMin.red, table.domainMin.green, table.domainMin.blue, 0)
        let high = SIMD4(table.domainMax.red, table.domainMax.green, table.domainMax.blue, 1)
        let scale = SIMD4<Float>(repeating: last) / (high - low)
        TransferCurves.encode.withUnsafeBufferPointer { encodeTable in
            TransferCurves.decode.withUnsafeBufferPointer { decodeTable in
                table.points.withUnsafeBufferPointer { points in
                    let encode = encodeTable.baseAddress!
                    let decode = decodeTable.baseAddress!
                    let grid = points.baseAddress!
                    for pixel in 0..<count {
                        let base = pixels + pixel &* 3
                        let input = SIMD4(base[0], base[1], base[2], 0)
                        let encoded = SIMD4(
                            TransferCurves.lookup(encode, input.x), TransferCurves.lookup(encode, input.y),
                            TransferCurves.lookup(encode, input.z), 0)
                        var position = (encoded - low) * scale
                        position.replace(with: 0, where: .!(position .> 0))  // NaN too
                        position.replace(with: last, where: position .> last)
                        let looked =
                            table.kind == .cube
                            ? tetrahedral(grid, size: size, position)
                            : curves(grid, size: size, position)
                        let output = SIMD4(
                            TransferCurves.lookup(decode, looked.x), TransferCurves.lookup(decode, looked.y),
                            TransferCurves.lookup(decode, looked.z), 0)
                        let mixed = intensity == 1 ? output : input + (output - input) * intensity
                        base[0] = mixed.x
                        base[1] = mixed.y
                        base[2] = mixed.z
                    }
                }
            }
        }
    }

    /// The grid cell holding `position` (coordinates in 0…size−1) is split into six
    /// tetrahedra along its main diagonal; the one holding the point is found by ordering the
    /// fractions, and the output is the four corners weighted by their barycentric weights.
    @inline(__always)
    static func tetrahedral(_ grid: UnsafePointer<Float>, size: Int, _ position: SIMD4<Float>) -> SIMD4<Float> {
        let top = size &- 2
        let r = min(Int(position.x), top)
        let g = min(Int(position.y), top)
        let b = min(Int(position.z), top)
        let fr = position.x - Float(r)
        let fg = position.y - Float(g)
        let fb = position.z - Float(b)
        let stepR = 3
        let stepG = 3 &* size
        let stepB = 3 &* size &* size
        let origin = grid + (r &* stepR &+ g &* stepG &+ b &* stepB)
        @inline(__always) func at(_ offset: Int) -> SIMD4<Float> {
            UnsafeRawPointer(origin + offset).loadUnaligned(as: SIMD4<Float>.self)
        }
        let c000 = at(0)
        let c111 = at(stepR &+ stepG &+ stepB)
        if fr > fg {
            if fg > fb {  // r > g > b
                let c100 = at(stepR)
                let c110 = at(stepR &+ stepG)
                return c000 + (c100 - c000) * fr + (c110 - c100) * fg + (c111 - c110) * fb
            } else if fr > fb {  // r > b ≥ g
                let c100 = at(stepR)
                let c101 = at(stepR &+ stepB)
                return c000 + (c100 - c000) * fr + (c101 - c100) * fb + (c111 - c101) * fg
            } else {  // b ≥ r > g
                let c001 = at(stepB)
                let c101 = at(stepR &+ stepB)
                return c000 + (c001 - c000) * fb + (c101 - c001) * fr + (c111 - c101) * fg
            }
        } else {
            if fb > fg {  // b > g ≥ r
                let c001 = at(stepB)
                let c011 = at(stepG &+ stepB)
                return c000 + (c001 - c000) * fb + (c011 - c001) * fg + (c111 - c011) * fr
            } else if fb > fr {  // g ≥ b > r
                let c010 = at(stepG)
                let c011 = at(stepG &+ stepB)
                return c000 + (c010 - c000) * fg + (c011 - c010) * fb + (c111 - c011) * fr
            } else {  // g ≥ r ≥ b
                let c010 = at(stepG)
                let c110 = at(stepR &+ stepG)
                return c000 + (c010 - c000) * fg + (c110 - c010) * fr + (c111 - c110) * fb
            }
        }
    }

    /// Each channel through its own curve, linearly between the two points around it.
    @inline(__always)
    static func curves(_ grid: UnsafePointer<Float>, size: Int, _ position: SIMD4<Float>) -> SIMD4<Float> {
        let top = size &- 2
        var result = SIMD4<Float>()
        for channel in 0..<3 {
            let index = min(Int(position[channel]), top)
            let fraction = position[channel] - Float(index)
            let below = grid[index &* 3 &+ channel]
            let above = grid[(index &+ 1) &* 3 &+ channel]
            result[channel] = below + (above - below) * fraction
        }
        return result
    }
}

/// The sRGB transfer functions sampled at 4096 intervals over [0, 1], read with linear
/// interpolation: error below 10⁻⁴ of full scale, a fortieth of an 8-bit code. Built once per
/// process on first use.
enum TransferCurves {
    static let size = 4096
    /// Linear light → sRGB-encoded.
    static let encode = build(SRGB.fromLinear)
    /// sRGB-encoded → linear light.
    static let decode = build(SRGB.toLinear)

    /// Bytes both tables take (for the memory estimate).
    static let bytes = 2 * (size + 1) * 4

    static func build(_ function: (Double) -> Double) -> [Float] {
        (0...size).map { Float(function(Double($0) / Double(size))) }
    }

    /// The curve at `value` clamped to [0, 1] (NaN reads as 0).
    @inline(__always)
    static func lookup(_ table: UnsafePointer<Float>, _ value: Float) -> Float {
        var x = value > 0 ? value : 0
        x = x < 1 ? x : 1
        let position = x * Float(size)
        let index = min(Int(position), size &- 1)
        let fraction = position - Float(index)
        let below = table[index]
        return below + (table[index &+ 1] - below) * fraction
    }
}
