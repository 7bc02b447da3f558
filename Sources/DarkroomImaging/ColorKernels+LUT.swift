/// The filter kernel: a `.cube` display LUT on the sRGB-encoded values of each pixel, mixed
/// with the input in linear light by intensity. Each channel is encoded (clamped to [0, 1]),
/// placed on the grid by the table's domain (clamped to its ends), looked up (tetrahedral
/// interpolation for a 3D table, linear for 1D curves), clamped to [0, 1] and decoded again.
/// The transfer functions are read from two shared tables of lines (`TransferLines`), so a
/// pixel costs no `pow`.
///
/// Eight pixels (24 floats, three `SIMD8`s whose lanes cycle through R, G, B) go through each
/// stage together: the transfer curves and the placement on the grid are the same for every
/// float, so they run eight lanes at a time with no float-to-integer conversion that could
/// trap (`Floor`); only the interpolation in the table is per pixel, and it does not branch.
extension ColorKernels {
    static func filter(_ step: FilterStep, _ strip: LinearStrip) {
        // RenderGeometry refuses a filter whose table was not loaded.
        guard let table = step.table, let pixels = strip.pixels.baseAddress else { return }
        let count = strip.width * strip.rows
        let kernel = LUTKernel(table: table, intensity: step.intensity)
        table.points.withUnsafeBufferPointer { points in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: LUTKernel.scratchFloats) { scratch in
                kernel.apply(
                    pixels, count: count, encode: TransferCurves.encode, decode: TransferCurves.decode,
                    grid: points.baseAddress!, scratch: scratch.baseAddress!)
            }
        }
    }
}

/// One filter step's constants, worked out once per strip.
struct LUTKernel {
    static let pixelsPerGroup = 8
    static let floatsPerGroup = 24
    static let tailOffset = 3 * floatsPerGroup + 4
    static let axesOffset = tailOffset + floatsPerGroup
    /// Sort keys of the fractions, cell offsets (as bit patterns), looked-up values (and room
    /// for the last four-float store), a group's worth of pixels for the tail, and the axes.
    static let scratchFloats = axesOffset + 4

    /// Lane `i` of the `k`-th `SIMD8` of a group of eight pixels holds channel `(8k + i) mod 3`,
    /// so each per-channel constant is three `SIMD8`s with that pattern.
    struct Lanes {
        var low: SIMD8<Float>
        var scale: SIMD8<Float>
        var last: SIMD8<Float>
        /// Floats from one grid point to the next along the lane's channel's axis (a cube), or
        /// three (curves, whose lanes add their channel). Floats: the products are whole
        /// numbers below 2²², exact, and SSE2 has no 32-bit integer multiply.
        var stride: SIMD8<Float>
        var channel: SIMD8<Float>
        /// The lane's channel, as `key` wants it.
        var axis: SIMD8<UInt32>
    }

    let cube: Bool
    let intensity: Float
    let lanes: (Lanes, Lanes, Lanes)
    let top: SIMD8<Float>
    /// A cube's bytes from a grid point to the next along red, green and blue, and to the far
    /// corner of its cell (what `tetrahedral` reads as `axes`).
    let axes: SIMD4<UInt32>

    init(table: ColorLookupTable, intensity: Float) {
        cube = table.kind == .cube
        self.intensity = intensity
        let size = table.size
        let lastPoint = Float(size - 1)
        let low3 = [table.domainMin.red, table.domainMin.green, table.domainMin.blue]
        let high3 = [table.domainMax.red, table.domainMax.green, table.domainMax.blue]
        // Each channel's scale as a scalar kernel would work it out: last / (high − low).
        let scale3 = (0..<3).map { lastPoint / (high3[$0] - low3[$0]) }
        let (r, g, b) = (4, 4 * size, 4 * size * size)
        let stride3: [Float] = cube ? [Float(r), Float(g), Float(b)] : [3, 3, 3]
        let channel3: [Float] = cube ? [0, 0, 0] : [0, 1, 2]
        func lanes(_ k: Int) -> Lanes {
            func pattern<T: SIMDScalar>(_ values: [T]) -> SIMD8<T> { SIMD8((0..<8).map { values[(8 * k + $0) % 3] }) }
            return Lanes(
                low: pattern(low3), scale: pattern(scale3), last: SIMD8(repeating: lastPoint),
                stride: pattern(stride3), channel: pattern(channel3), axis: pattern([0, 1, 2] as [UInt32]))
        }
        self.lanes = (lanes(0), lanes(1), lanes(2))
        top = SIMD8(repeating: Float(size - 2))
        axes = SIMD4(UInt32(r), UInt32(g), UInt32(b), UInt32(r + g + b)) &* 4
    }

    func apply(
        _ pixels: UnsafeMutablePointer<Float>, count: Int, encode: TransferLines, decode: TransferLines,
        grid: UnsafePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        UnsafeMutableRawPointer(scratch + Self.axesOffset).storeBytes(of: axes, as: SIMD4<UInt32>.self)
        let whole = count / Self.pixelsPerGroup * Self.pixelsPerGroup
        var pixel = 0
        while pixel < whole {
            group(pixels + pixel &* 3, encode: encode, decode: decode, grid: grid, scratch: scratch)
            pixel &+= Self.pixelsPerGroup
        }
        guard pixel < count else { return }
        // The last few pixels, padded with black in the scratch.
        let tail = scratch + Self.tailOffset
        let floats = (count - pixel) * 3
        tail.update(repeating: 0, count: Self.floatsPerGroup)
        tail.update(from: pixels + pixel * 3, count: floats)
        group(tail, encode: encode, decode: decode, grid: grid, scratch: scratch)
        (pixels + pixel * 3).update(from: tail, count: floats)
    }

    /// Eight pixels, in place.
    @inline(__always)
    func group(
        _ base: UnsafeMutablePointer<Float>, encode: TransferLines, decode: TransferLines,
        grid: UnsafePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        let fractions = UnsafeMutableRawPointer(scratch)
        let offsets = UnsafeMutableRawPointer(scratch + Self.floatsPerGroup)
        let looked = scratch + 2 * Self.floatsPerGroup
        let input = UnsafeMutableRawPointer(base)
        place(input, lanes.0, 0, encode: encode, fractions: fractions, offsets: offsets)
        place(input, lanes.1, 32, encode: encode, fractions: fractions, offsets: offsets)
        place(input, lanes.2, 64, encode: encode, fractions: fractions, offsets: offsets)
        let fraction = scratch
        let offset = offsets.assumingMemoryBound(to: UInt32.self)
        if cube {
            let keys = fractions.assumingMemoryBound(to: UInt32.self)
            let axes = UnsafeRawPointer(scratch + Self.axesOffset).assumingMemoryBound(to: UInt32.self)
            for at in Swift.stride(from: 0, to: Self.floatsPerGroup, by: 3) {
                let origin = grid + Int(truncatingIfNeeded: offset[at] &+ offset[at &+ 1] &+ offset[at &+ 2])
                let value = Self.tetrahedral(origin, keys[at], keys[at &+ 1], keys[at &+ 2], axes: axes)
                UnsafeMutableRawPointer(looked + at).storeBytes(of: value, as: SIMD4<Float>.self)
            }
        } else {
            for lane in 0..<Self.floatsPerGroup {
                let index = Int(truncatingIfNeeded: offset[lane])
                let below = grid[index]
                looked[lane] = below + (grid[index &+ 3] - below) * fraction[lane]
            }
        }
        for byteOffset in Swift.stride(from: 0, to: 96, by: 32) {
            let output = decode(
                UnsafeRawPointer(looked).loadUnaligned(fromByteOffset: byteOffset, as: SIMD8<Float>.self))
            var mixed = output
            if intensity != 1 {
                let before = input.loadUnaligned(fromByteOffset: byteOffset, as: SIMD8<Float>.self)
                mixed = before + (output - before) * intensity
            }
            input.storeBytes(of: mixed, toByteOffset: byteOffset, as: SIMD8<Float>.self)
        }
    }

    /// Eight floats encoded and placed on the grid: their fractions (as sort keys for a cube,
    /// see `tetrahedral`), and their cells' offsets.
    @inline(__always)
    func place(
        _ input: UnsafeMutableRawPointer, _ lanes: Lanes, _ byteOffset: Int, encode: TransferLines,
        fractions: UnsafeMutableRawPointer, offsets: UnsafeMutableRawPointer
    ) {
        let encoded = encode(input.loadUnaligned(fromByteOffset: byteOffset, as: SIMD8<Float>.self))
        var position = (encoded - lanes.low) * lanes.scale
        position.replace(with: 0, where: .!(position .> 0))  // NaN too
        position.replace(with: lanes.last, where: position .> lanes.last)
        var cell = Floor.of(position)
        cell.replace(with: top, where: cell .> top)
        let fraction = position - cell
        fractions.storeBytes(
            of: cube ? Self.key(fraction, channel: lanes.axis) : unsafeBitCast(fraction, to: SIMD8<UInt32>.self),
            toByteOffset: byteOffset, as: SIMD8<UInt32>.self)
        offsets.storeBytes(
            of: Floor.integer(cell * lanes.stride + lanes.channel), toByteOffset: byteOffset,
            as: SIMD8<UInt32>.self)
    }

    /// A fraction in [0, 1] as a sort key: its bits shifted left by two (ordering the bits of
    /// non-negative floats orders their values), and its channel (0, 1, 2) below them.
    @inline(__always)
    static func key(_ fraction: SIMD8<Float>, channel: SIMD8<UInt32>) -> SIMD8<UInt32> {
        unsafeBitCast(fraction, to: SIMD8<UInt32>.self) &<< 2 | channel
    }

    /// The grid cell at `origin` (its lowest corner) is split into six tetrahedra along its main
    /// diagonal; the one holding the point is found by ordering the fractions, and the output is
    /// the four corners weighted by their barycentric weights. The fractions come as sort keys
    /// (`key`): the order is integer `min` and `max`, which compile to conditional moves (float
    /// comparisons compile to branches, which a photo's noise makes unpredictable), and the
    /// largest and smallest keys name the axes that pick the corners. `axes` holds the bytes to
    /// the next point along red, green and blue, and to the far corner.
    @inline(__always)
    static func tetrahedral(
        _ origin: UnsafePointer<Float>, _ red: UInt32, _ green: UInt32, _ blue: UInt32, axes: UnsafePointer<UInt32>
    ) -> SIMD4<Float> {
        let high = max(red, max(green, blue))
        let low = min(red, min(green, blue))
        let middle = red &+ green &+ blue &- high &- low
        // A step along the axis of the largest fraction; a step along all but the smallest's.
        let byFirst = Int(truncatingIfNeeded: axes[Int(truncatingIfNeeded: high & 3)])
        let bySecond = Int(truncatingIfNeeded: axes[3] &- axes[Int(truncatingIfNeeded: low & 3)])
        let raw = UnsafeRawPointer(origin)
        let c000 = raw.load(as: SIMD4<Float>.self)
        let cA = raw.load(fromByteOffset: byFirst, as: SIMD4<Float>.self)
        let cB = raw.load(fromByteOffset: bySecond, as: SIMD4<Float>.self)
        let c111 = raw.load(fromByteOffset: Int(truncatingIfNeeded: axes[3]), as: SIMD4<Float>.self)
        return c000 + (cA - c000) * Float(bitPattern: high >> 2) + (cB - cA) * Float(bitPattern: middle >> 2)
            + (c111 - cB) * Float(bitPattern: low >> 2)
    }
}

/// `floor` for floats in [0, 2²²) without a conversion to an integer: adding and taking away
/// 2²³ rounds to the nearest whole number, one less where that rounded up.
enum Floor {
    static let magic: Float = 0x1p23
    static let magicBits = Int32(bitPattern: magic.bitPattern)

    @inline(__always)
    static func of(_ value: SIMD8<Float>) -> SIMD8<Float> {
        let nearest = (value + magic) - magic
        return nearest.replacing(with: nearest - 1, where: nearest .> value)
    }

    /// A whole number below 2²² as an integer: its bits once 2²³ is added.
    @inline(__always)
    static func integer(_ whole: SIMD8<Float>) -> SIMD8<UInt32> {
        unsafeBitCast(whole + magic, to: SIMD8<UInt32>.self) & 0x7F_FFFF
    }
}

/// An sRGB transfer function on [0, 1] as a line per cell, the cells cut by the float's
/// exponent and top 8 mantissa bits (as `SRGBEncoder` cuts them): each cell spans 1/256 of
/// its value, so the line through its ends is within 10⁻⁵ of the curve, relative, and a
/// value costs one lookup and one multiply-add, its cell read straight from its bits. Below
/// `floor` both functions are straight lines (sRGB's linear segment), the first cell's.
struct TransferLines: @unchecked Sendable {  // immutable after init; never freed
    static let shift: UInt32 = 23 - 8

    let floor: Float
    let floorBits: UInt32
    /// Intercept and slope of each cell's line.
    let lines: UnsafeMutablePointer<SIMD2<Float>>
    let count: Int

    /// `floor` must lie in `function`'s linear segment.
    init(_ function: (Double) -> Double, floor: Float) {
        self.floor = floor
        floorBits = floor.bitPattern
        // Cells from `floor` up to and including the first of exponent 0 (holding 1.0).
        count = Int((Float(1).bitPattern - floorBits) >> Self.shift) + 1
        lines = .allocate(capacity: count)
        for cell in 0..<count {
            let start = Double(Float(bitPattern: floorBits + UInt32(cell) << Self.shift))
            let end = Double(Float(bitPattern: floorBits + UInt32(cell + 1) << Self.shift))
            let slope = (function(end) - function(start)) / (end - start)
            lines[cell] = SIMD2(Float(function(start) - slope * start), Float(slope))
        }
    }

    var bytes: Int { count * 8 }

    /// The curve at each value clamped to [0, 1] (NaN reads as 0).
    @inline(__always)
    func callAsFunction(_ values: SIMD8<Float>) -> SIMD8<Float> {
        var x = values.replacing(with: 0, where: .!(values .> 0))
        x.replace(with: 1, where: x .> 1)
        // The cell from the value raised to the floor (float comparisons: SSE2 has them).
        let raised = SIMD8(repeating: floor).replacing(with: x, where: x .> floor)
        let cells = (unsafeBitCast(raised, to: SIMD8<UInt32>.self) &- floorBits) &>> Self.shift
        var intercept = SIMD8<Float>()
        var slope = SIMD8<Float>()
        for lane in 0..<8 {
            let line = lines[Int(truncatingIfNeeded: cells[lane])]
            intercept[lane] = line.x
            slope[lane] = line.y
        }
        return intercept + slope * x
    }
}

/// The two transfer curves the filter kernel reads, built once per process on first use.
enum TransferCurves {
    /// Linear light → sRGB-encoded: linear below 0.0031308.
    static let encode = TransferLines(SRGB.fromLinear, floor: 0x1p-13)
    /// sRGB-encoded → linear light: linear below 0.04045.
    static let decode = TransferLines(SRGB.toLinear, floor: 0x1p-5)

    /// Bytes both tables take (for the memory estimate).
    static let bytes = encode.bytes + decode.bytes
}
