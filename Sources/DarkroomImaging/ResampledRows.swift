/// A rotation or orientation as a row stage. Its input is quantised to 8-bit sRGB as it
/// arrives (as the encoder would), so both ways of holding it give the same samples, in the
/// space the plan picked: linear-light rows out (`nextRow`), or, when the step is all the render
/// does, 8-bit codes (`nextCodes`). Two ways of holding the input:
///
/// - band: a strip of output rows reads a slanted band of input rows, which slides down the
///   image; a ring of the band's height holds them (turns under 90°, no flip of the rows), and
///   the strip is made in narrow blocks, whose few input rows stay in the cache;
/// - tiles: the whole input goes to a spill of 8-bit tiles first; each output strip is then
///   made block by block, each block reading just the tiles under its footprint.
final class ResampledRows: LinearRowSource {
    let region: PixelRect
    private let upstream: any LinearRowSource
    private let input: PixelRect  // in the frame before, as `upstream` delivers it
    private let canvas: PixelRect
    private let sampler: BicubicSampler
    private let mode: ResamplePlan.Mode
    private let spillDirectory: String
    private let isCancelled: @Sendable () -> Bool
    private let pulled: UnsafeMutableBufferPointer<Float>  // one upstream row
    private let codes: UnsafeMutableBufferPointer<UInt8>  // it, in 8-bit sRGB
    private let buffer: UnsafeMutableRawBufferPointer  // a strip of output, `pixelBytes` a pixel
    private let pixelBytes: Int
    private var ring: UnsafeMutableBufferPointer<Float> = .init(start: nil, count: 0)
    private var block: UnsafeMutableBufferPointer<Float> = .init(start: nil, count: 0)
    private var nextInputY: Int
    private var nextOutputY: Int
    private var spill: SpillStorage?
    private var stripTop = 0
    private var stripRows = 0

    init(
        upstream: any LinearRowSource, step: ResampleStep, output: PixelRect, plan: ResamplePlan,
        spillDirectory: String, isCancelled: @escaping @Sendable () -> Bool
    ) {
        self.upstream = upstream
        input = upstream.region
        canvas = step.canvas
        region = output
        mode = plan.mode
        self.spillDirectory = spillDirectory
        self.isCancelled = isCancelled
        sampler = BicubicSampler(
            map: step.map, imageWidth: step.canvas.width, imageHeight: step.canvas.height, space: plan.space,
            fill: step.fill)
        pixelBytes = plan.space == .codes ? 3 : 12
        pulled = .allocate(capacity: input.width * 3)
        codes = .allocate(capacity: input.width * 3)
        switch plan.mode {
        case .band(let rows):
            ring = .allocate(capacity: rows * input.width * 4)
            buffer = .allocate(byteCount: ResamplePlan.bandStripRows * output.width * pixelBytes, alignment: 16)
        case .tiles(_, let blockSize, _, _):
            buffer = .allocate(byteCount: blockSize * output.width * pixelBytes, alignment: 16)
            let footprint = ResamplePlan.footprintSide(step.map, block: blockSize)
            block = .allocate(capacity: footprint.width * footprint.height * 4)
        }
        nextInputY = input.y
        nextOutputY = output.y
        stripTop = output.y
    }

    deinit {
        pulled.deallocate()
        codes.deallocate()
        buffer.deallocate()
        ring.deallocate()
        block.deallocate()
    }

    func nextRow(into row: UnsafeMutablePointer<Float>) throws {
        precondition(sampler.space == .linear)
        let from = try nextOutputRow()
        row.update(from: from.assumingMemoryBound(to: Float.self), count: region.width * 3)
    }

    /// The next output row in 8-bit codes, when the plan samples in codes.
    func nextCodes(into row: UnsafeMutablePointer<UInt8>) throws {
        precondition(sampler.space == .codes)
        let from = try nextOutputRow()
        row.update(from: from.assumingMemoryBound(to: UInt8.self), count: region.width * 3)
    }

    /// Where the next output row is in `buffer`, once made.
    private func nextOutputRow() throws -> UnsafeMutableRawPointer {
        if nextOutputY == stripTop + stripRows {
            switch mode {
            case .band(let slots): try makeBandStrip(slots: slots)
            case .tiles(let tile, let blockSize, let kind, let bytes):
                if spill == nil { try fillSpill(tile: tile, kind: kind, bytes: bytes) }
                try makeStrip(tile: tile, blockSize: blockSize)
            }
        }
        defer { nextOutputY += 1 }
        return buffer.baseAddress! + (nextOutputY - stripTop) * region.width * pixelBytes
    }

    /// Output pixels `columns` of output row `y` into the strip's row `row`.
    private func sample(row y: Int, columns: Range<Int>, from window: SampleWindow, stripRow row: Int) {
        let target = buffer.baseAddress! + (row * region.width + columns.lowerBound - region.x) * pixelBytes
        if sampler.space == .codes {
            sampler.sample(
                row: y, columns: columns, from: window, into: target.assumingMemoryBound(to: UInt8.self))
        } else {
            sampler.sample(row: y, columns: columns, from: window, into: target.assumingMemoryBound(to: Float.self))
        }
    }

    /// Pulls the next input row, quantised: 8-bit sRGB codes in `codes`. Straight from the
    /// decoder when nothing comes before (the same codes: sRGB → linear → sRGB gives them back).
    private func pullCodes() throws {
        if let decoded = upstream as? DecodedRows {
            try decoded.nextCodes(into: codes.baseAddress!)
        } else {
            try upstream.nextRow(into: pulled.baseAddress!)
            SRGB.encode(pulled.baseAddress!, into: codes.baseAddress!, count: input.width * 3)
        }
        nextInputY += 1
    }

    // MARK: Band

    /// The next strip of output rows from the ring, once it holds every input row they read.
    private func makeBandStrip(slots: Int) throws {
        stripTop = nextOutputY
        stripRows = min(ResamplePlan.bandStripRows, region.maxY - stripTop)
        let needed = inputRows(PixelRect(x: region.x, y: stripTop, width: region.width, height: stripRows))
        while nextInputY <= needed.upperBound + canvas.y {
            let slot = (nextInputY - input.y) % slots
            try pullCodes()
            sampler.decode(codes.baseAddress!, into: ring.baseAddress! + slot * input.width * 4, pixels: input.width)
        }
        let bottom = nextInputY - 1 - canvas.y
        let window = SampleWindow(
            pixels: UnsafePointer(ring.baseAddress!), x: input.x - canvas.x, stride: input.width * 4,
            baseRow: input.y - canvas.y, slots: slots,
            columns: (input.x - canvas.x)...(input.maxX - 1 - canvas.x),
            rows: max(input.y - canvas.y, bottom - slots + 1)...bottom)
        for blockX in stride(from: region.x, to: region.maxX, by: ResamplePlan.bandBlockColumns) {
            let columns = blockX..<min(blockX + ResamplePlan.bandBlockColumns, region.maxX)
            for y in 0..<stripRows {
                sample(row: stripTop + y, columns: columns, from: window, stripRow: y)
            }
        }
    }

    /// Input rows (relative to the canvas) whose taps the output `rect` reads, within the input.
    private func inputRows(_ rect: PixelRect) -> ClosedRange<Int> {
        let rows = sampler.map.footprint(of: rect).rows
        let top = input.y - canvas.y
        let bottom = input.maxY - 1 - canvas.y
        let low = min(max(rows.lowerBound, top), bottom)
        return low...max(min(rows.upperBound, bottom), low)
    }

    // MARK: Tiles

    /// Tile (column c, row r) of the input holds its `tile`² pixels at ((r · columns + c) · tile² · 3).
    private func fillSpill(tile: Int, kind: SpillKind, bytes: Int) throws {
        let storage: SpillStorage =
            kind == .memory ? MemorySpill(byteCount: bytes) : try FileSpill(directory: spillDirectory)
        let columns = (input.width + tile - 1) / tile
        let band = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: tile * input.width * 3)
        let packed = UnsafeMutableRawBufferPointer.allocate(byteCount: tile * tile * 3, alignment: 16)
        defer {
            band.deallocate()
            packed.deallocate()
        }
        for tileRow in 0..<((input.height + tile - 1) / tile) {
            if isCancelled() { throw RenderError.cancelled }
            let rows = min(tile, input.height - tileRow * tile)
            for row in 0..<rows {
                try pullCodes()
                (band.baseAddress! + row * input.width * 3).update(from: codes.baseAddress!, count: input.width * 3)
            }
            for column in 0..<columns {
                let x = column * tile
                let width = min(tile, input.width - x)
                for row in 0..<rows {
                    (packed.baseAddress! + row * tile * 3).copyMemory(
                        from: band.baseAddress! + row * input.width * 3 + x * 3, byteCount: width * 3)
                }
                try storage.write(
                    at: (tileRow * columns + column) * tile * tile * 3, from: UnsafeRawBufferPointer(packed))
            }
        }
        spill = storage
    }

    /// The next strip of output rows, made block by block from the tiles under each block.
    private func makeStrip(tile: Int, blockSize: Int) throws {
        guard let spill else { preconditionFailure("spill not filled") }
        stripTop = nextOutputY
        stripRows = min(blockSize, region.maxY - stripTop)
        let columns = (input.width + tile - 1) / tile
        let tileBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: tile * tile * 3, alignment: 16)
        defer { tileBytes.deallocate() }
        for blockX in stride(from: region.x, to: region.maxX, by: blockSize) {
            if isCancelled() { throw RenderError.cancelled }
            let rect = PixelRect(x: blockX, y: stripTop, width: min(blockSize, region.maxX - blockX), height: stripRows)
            // The block's footprint within the input, relative to the input's corner.
            let footprint = sampler.map.footprint(of: rect)
            let clampX = { (v: Int) in min(max(v, 0), self.input.width - 1) }
            let clampY = { (v: Int) in min(max(v, 0), self.input.height - 1) }
            let left = clampX(footprint.columns.lowerBound + canvas.x - input.x)
            let right = max(clampX(footprint.columns.upperBound + canvas.x - input.x), left)
            let top = clampY(footprint.rows.lowerBound + canvas.y - input.y)
            let bottom = max(clampY(footprint.rows.upperBound + canvas.y - input.y), top)
            let width = right - left + 1
            for tileRow in (top / tile)...(bottom / tile) {
                for tileColumn in (left / tile)...(right / tile) {
                    try spill.read(
                        at: (tileRow * columns + tileColumn) * tile * tile * 3, into: tileBytes)
                    let codes = tileBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    let x0 = max(left, tileColumn * tile)
                    let x1 = min(right, tileColumn * tile + tile - 1)
                    for y in max(top, tileRow * tile)...min(bottom, tileRow * tile + tile - 1) {
                        sampler.decode(
                            codes + ((y - tileRow * tile) * tile + x0 - tileColumn * tile) * 3,
                            into: block.baseAddress! + ((y - top) * width + x0 - left) * 4, pixels: x1 - x0 + 1)
                    }
                }
            }
            let window = SampleWindow(
                pixels: UnsafePointer(block.baseAddress!), x: left + input.x - canvas.x, stride: width * 4,
                baseRow: top + input.y - canvas.y, slots: bottom - top + 1,
                columns: (left + input.x - canvas.x)...(right + input.x - canvas.x),
                rows: (top + input.y - canvas.y)...(bottom + input.y - canvas.y))
            for y in 0..<stripRows {
                sample(row: stripTop + y, columns: rect.x..<rect.maxX, from: window, stripRow: y)
            }
        }
    }
}
