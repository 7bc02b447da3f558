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
final class ResampledRows: CodeRowSource {
    let region: PixelRect
    private let input: PixelRect  // in the frame before, as the upstream delivers it
    private let canvas: PixelRect
    private let sampler: BicubicSampler
    private let mode: ResamplePlan.Mode
    private let spillDirectory: String
    private let isCancelled: @Sendable () -> Bool
    private let pull: UpstreamCodes
    private let buffer: UnsafeMutableRawBufferPointer  // a strip of output, `pixelBytes` a pixel
    private let pixelBytes: Int
    private var ring: UnsafeMutableBufferPointer<Float> = .init(start: nil, count: 0)
    private var block: UnsafeMutableBufferPointer<Float> = .init(start: nil, count: 0)
    private var nextOutputY: Int
    private var spill: TileSpill?
    private var stripTop = 0
    private var stripRows = 0

    init(
        upstream: any LinearRowSource, step: ResampleStep, output: PixelRect, plan: ResamplePlan,
        spillDirectory: String, isCancelled: @escaping @Sendable () -> Bool
    ) {
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
        pull = UpstreamCodes(upstream)
        switch plan.mode {
        case .band(let rows):
            ring = .allocate(capacity: rows * input.width * 4)
            buffer = .allocate(byteCount: ResamplePlan.bandStripRows * output.width * pixelBytes, alignment: 16)
        case .tiles(_, let blockSize, _, _):
            buffer = .allocate(byteCount: blockSize * output.width * pixelBytes, alignment: 16)
            let footprint = ResamplePlan.footprintSide(step.map, block: blockSize)
            block = .allocate(capacity: footprint.width * footprint.height * 4)
        }
        nextOutputY = output.y
        stripTop = output.y
    }

    deinit {
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
            case .tiles(let tile, let blockSize, let kind, _):
                if spill == nil {
                    spill = try TileSpill(
                        filledFrom: pull, tile: tile, kind: kind, directory: spillDirectory, isCancelled: isCancelled)
                }
                try makeStrip(blockSize: blockSize)
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

    // MARK: Band

    /// The next strip of output rows from the ring, once it holds every input row they read.
    private func makeBandStrip(slots: Int) throws {
        stripTop = nextOutputY
        stripRows = min(ResamplePlan.bandStripRows, region.maxY - stripTop)
        let needed = inputRows(PixelRect(x: region.x, y: stripTop, width: region.width, height: stripRows))
        while pull.nextY <= needed.upperBound + canvas.y {
            let slot = (pull.nextY - input.y) % slots
            sampler.decode(try pull.next(), into: ring.baseAddress! + slot * input.width * 4, pixels: input.width)
        }
        let bottom = pull.nextY - 1 - canvas.y
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
        sampler.map.footprint(of: rect).rows.clamped(to: (input.y - canvas.y)...(input.maxY - 1 - canvas.y))
    }

    // MARK: Tiles

    /// The next strip of output rows, made block by block from the tiles under each block.
    private func makeStrip(blockSize: Int) throws {
        guard let spill else { preconditionFailure("spill not filled") }
        stripTop = nextOutputY
        stripRows = min(blockSize, region.maxY - stripTop)
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
            try spill.read(PixelRect(x: left, y: top, width: width, height: bottom - top + 1)) { codes, x, y, count in
                sampler.decode(codes, into: block.baseAddress! + ((y - top) * width + x - left) * 4, pixels: count)
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
