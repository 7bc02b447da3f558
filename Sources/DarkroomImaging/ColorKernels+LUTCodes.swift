/// The filter kernel on a strip's 8-bit sRGB codes, for a filter that is a strip's first colour
/// operation (`StripColor.Route` decides). The codes are the sRGB-encoded values the LUT reads,
/// exactly (`code/255`), so nothing is encoded: each channel's 256 codes are placed on the grid
/// once per strip (a cell offset and a fraction each), and a pixel is three lookups in that
/// small table and a tetrahedral interpolation. The output goes back to codes (rounded, when
/// nothing follows at full intensity) or to linear light for the operations that follow.
struct LUTCodeKernel {
    /// Where a code sits on the grid: its cell's offset in floats along its channel's axis (a
    /// cube), and its fraction of the way to the next point as a sort key (`LUTKernel.key`).
    struct Cell {
        var offset: UInt32
        var key: UInt32
    }

    /// A cell per code and channel (768), or for curves each code's looked-up value (768 floats).
    static let entries = 768
    /// The looked-up values of a group (and room for the last four-float store), then a tail's
    /// codes and its linear output.
    static let tailCodes = 32
    static let tailLinear = 40
    static let scratchFloats = tailLinear + LUTKernel.floatsPerGroup

    let kernel: LUTKernel
    let table: ColorLookupTable

    init(table: ColorLookupTable, intensity: Float) {
        self.table = table
        kernel = LUTKernel(table: table, intensity: intensity)
    }

    /// The cells of every code, placed as `LUTKernel.place` places an encoded value.
    func fill(cells: UnsafeMutablePointer<Cell>, grid: UnsafePointer<Float>) {
        let size = table.size
        let last = Float(size - 1)
        let low = [table.domainMin.red, table.domainMin.green, table.domainMin.blue]
        let high = [table.domainMax.red, table.domainMax.green, table.domainMax.blue]
        let strides = [1, size, size * size].map { 4 * $0 }
        for channel in 0..<3 {
            let scale = last / (high[channel] - low[channel])
            for code in 0..<256 {
                var position = (Float(code) / 255 - low[channel]) * scale
                position = position > 0 ? min(position, last) : 0
                let cell = min(position.rounded(.down), last - 1)
                let fraction = position - cell
                let index = channel * 256 + code
                if kernel.cube {
                    let key = LUTKernel.key(SIMD8(repeating: fraction), channel: SIMD8(repeating: UInt32(channel)))[0]
                    cells[index] = Cell(offset: UInt32(Int(cell) * strides[channel]), key: key)
                } else {
                    // Curves: the value itself, interpolated as the float kernel does.
                    let at = Int(cell) * 3 + channel
                    let below = grid[at]
                    let value = below + (grid[at + 3] - below) * fraction
                    cells[index] = Cell(offset: 0, key: value.bitPattern)
                }
            }
        }
    }

    /// `count` pixels of codes, in place: the LUT's output rounded to codes.
    func apply(
        codes: UnsafeMutablePointer<UInt8>, count: Int, cells: UnsafePointer<Cell>, axes: UnsafePointer<UInt32>,
        grid: UnsafePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        let whole = count / LUTKernel.pixelsPerGroup * LUTKernel.pixelsPerGroup
        var pixel = 0
        while pixel < whole {
            let group = codes + pixel &* 3
            look(group, cells: cells, axes: axes, grid: grid, into: scratch)
            round(scratch, into: group)
            pixel &+= LUTKernel.pixelsPerGroup
        }
        guard pixel < count else { return }
        let tail = UnsafeMutableRawPointer(scratch + Self.tailCodes).assumingMemoryBound(to: UInt8.self)
        let bytes = (count - pixel) * 3
        tail.update(repeating: 0, count: LUTKernel.floatsPerGroup)
        tail.update(from: codes + pixel * 3, count: bytes)
        look(tail, cells: cells, axes: axes, grid: grid, into: scratch)
        round(scratch, into: tail)
        (codes + pixel * 3).update(from: tail, count: bytes)
    }

    /// `count` pixels of codes into linear light, mixed with the decoded codes by intensity.
    func apply(
        codes: UnsafeMutablePointer<UInt8>, count: Int, into linear: UnsafeMutablePointer<Float>,
        cells: UnsafePointer<Cell>, axes: UnsafePointer<UInt32>, grid: UnsafePointer<Float>,
        scratch: UnsafeMutablePointer<Float>
    ) {
        let decode = TransferCurves.decode
        SRGB.decodeTable.withUnsafeBufferPointer { decodeTable in
            let table = decodeTable.baseAddress!
            let whole = count / LUTKernel.pixelsPerGroup * LUTKernel.pixelsPerGroup
            var pixel = 0
            while pixel < whole {
                let group = codes + pixel &* 3
                look(group, cells: cells, axes: axes, grid: grid, into: scratch)
                output(scratch, codes: group, into: linear + pixel &* 3, decode: decode, decodeTable: table)
                pixel &+= LUTKernel.pixelsPerGroup
            }
            guard pixel < count else { return }
            let tail = UnsafeMutableRawPointer(scratch + Self.tailCodes).assumingMemoryBound(to: UInt8.self)
            let out = scratch + Self.tailLinear
            let values = (count - pixel) * 3
            tail.update(repeating: 0, count: LUTKernel.floatsPerGroup)
            tail.update(from: codes + pixel * 3, count: values)
            look(tail, cells: cells, axes: axes, grid: grid, into: scratch)
            output(scratch, codes: tail, into: out, decode: decode, decodeTable: table)
            (linear + pixel * 3).update(from: out, count: values)
        }
    }

    /// Eight pixels' LUT outputs, sRGB-encoded, into `looked` (24 floats and room for the last
    /// four-float store).
    @inline(__always)
    func look(
        _ codes: UnsafePointer<UInt8>, cells: UnsafePointer<Cell>, axes: UnsafePointer<UInt32>,
        grid: UnsafePointer<Float>, into looked: UnsafeMutablePointer<Float>
    ) {
        if kernel.cube {
            for at in Swift.stride(from: 0, to: LUTKernel.floatsPerGroup, by: 3) {
                let red = cells[Int(codes[at])]
                let green = cells[256 &+ Int(codes[at &+ 1])]
                let blue = cells[512 &+ Int(codes[at &+ 2])]
                let origin = grid + Int(truncatingIfNeeded: red.offset &+ green.offset &+ blue.offset)
                let value = LUTKernel.tetrahedral(origin, red.key, green.key, blue.key, axes: axes)
                UnsafeMutableRawPointer(looked + at).storeBytes(of: value, as: SIMD4<Float>.self)
            }
        } else {
            for at in 0..<LUTKernel.floatsPerGroup {
                looked[at] = Float(bitPattern: cells[(at % 3) &* 256 &+ Int(codes[at])].key)
            }
        }
    }

    /// 24 looked-up values as codes: `255·v` rounded to the nearest whole number (ties to
    /// even), clamped to 0…255. Adding 2²³ rounds, and leaves the result in the low bits; a
    /// negative value leaves a pattern below 2²³'s, which clamps to 0. (The values are finite:
    /// a table holds no NaN or infinity, and the weights are fractions.)
    @inline(__always)
    func round(_ looked: UnsafeMutablePointer<Float>, into codes: UnsafeMutablePointer<UInt8>) {
        for k in 0..<3 {
            let value = UnsafeRawPointer(looked + 8 &* k).loadUnaligned(as: SIMD8<Float>.self)
            let bits = unsafeBitCast(value * 255 + Floor.magic, to: SIMD8<Int32>.self) &- Floor.magicBits
            // Clamped with shifts of the sign (comparisons on integer lanes compile lane by lane).
            let low = bits & ~(bits &>> 31)
            let over = 255 &- low
            let whole = low &+ (over & (over &>> 31))
            UnsafeMutableRawPointer(codes + 8 &* k).storeBytes(
                of: SIMD8<UInt8>(truncatingIfNeeded: whole), as: SIMD8<UInt8>.self)
        }
    }

    /// 24 looked-up values decoded to linear light and mixed with the decoded input codes.
    @inline(__always)
    func output(
        _ looked: UnsafeMutablePointer<Float>, codes: UnsafePointer<UInt8>, into linear: UnsafeMutablePointer<Float>,
        decode: TransferLines, decodeTable: UnsafePointer<Float>
    ) {
        for k in 0..<3 {
            var mixed = decode(UnsafeRawPointer(looked + 8 &* k).loadUnaligned(as: SIMD8<Float>.self))
            if kernel.intensity != 1 {
                var before = SIMD8<Float>()
                for lane in 0..<8 { before[lane] = decodeTable[Int(codes[8 &* k &+ lane])] }
                mixed = before + (mixed - before) * kernel.intensity
            }
            UnsafeMutableRawPointer(linear + 8 &* k).storeBytes(of: mixed, as: SIMD8<Float>.self)
        }
    }
}

extension LUTCodeKernel {
    /// A kernel with its table, its cells and its scratch, valid only inside `with`.
    struct Bound {
        let kernel: LUTCodeKernel
        let cells: UnsafePointer<Cell>
        let axes: UnsafePointer<UInt32>
        let grid: UnsafePointer<Float>
        let scratch: UnsafeMutablePointer<Float>

        func apply(codes: UnsafeMutablePointer<UInt8>, count: Int) {
            kernel.apply(codes: codes, count: count, cells: cells, axes: axes, grid: grid, scratch: scratch)
        }

        func apply(codes: UnsafeMutablePointer<UInt8>, count: Int, into linear: UnsafeMutablePointer<Float>) {
            kernel.apply(
                codes: codes, count: count, into: linear, cells: cells, axes: axes, grid: grid, scratch: scratch)
        }
    }

    /// `body` with the filter's kernel and its cells worked out (`filter.table` must be loaded).
    static func with(_ filter: FilterStep, _ body: (Bound) -> Void) {
        let table = filter.table!
        let kernel = LUTCodeKernel(table: table, intensity: filter.intensity)
        table.points.withUnsafeBufferPointer { points in
            let grid = points.baseAddress!
            withUnsafeTemporaryAllocation(of: Cell.self, capacity: entries) { cells in
                kernel.fill(cells: cells.baseAddress!, grid: grid)
                withUnsafeTemporaryAllocation(of: Float.self, capacity: scratchFloats) { scratch in
                    let axes = kernel.kernel.axes
                    [axes[0], axes[1], axes[2], axes[3]].withUnsafeBufferPointer { axes in
                        body(
                            Bound(
                                kernel: kernel, cells: cells.baseAddress!, axes: axes.baseAddress!, grid: grid,
                                scratch: scratch.baseAddress!))
                    }
                }
            }
        }
    }
}
