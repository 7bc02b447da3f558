/// A lone turn by at most 45° (`ShearedTurn`) as a row stage, in the input's 8-bit codes. It
/// holds its input the two ways `ResampledRows` does:
///
/// - band: each input row goes through the first pass as it arrives, into a ring of I1's rows
///   held skewed (`ShearKernels.Skewed`) as tall as the slant; each output row is then the
///   second pass down four of them and the third along the row, straight into the output;
/// - tiles: the input waits in a spill; each block of output runs the three passes on just the
///   input under it.
///
/// A pixel of I1 or I2 is made from the same positions and the same clamps (to the input's
/// rows and columns) either way, so both give the same bytes.
final class ShearedRows: CodeRowSource {
    let region: PixelRect
    private let pull: UpstreamCodes
    private let turn: ShearedTurn
    private let fill: ShearedFill?
    private let mode: ResamplePlan.Mode
    private let spillDirectory: String
    private let isCancelled: @Sendable () -> Bool
    /// The input's columns and rows, in the step's canvas (the frame `turn` works in).
    private let inputColumns: ClosedRange<Int>
    private let inputRows: ClosedRange<Int>
    private let input: PixelRect  // in the frame before, as the upstream delivers it
    private let canvas: PixelRect
    private let buffer: UnsafeMutableBufferPointer<UInt8>  // a strip of output blocks (tiles)
    private let secondPass: UnsafeMutableBufferPointer<UInt8>  // one row of I2
    private var ring: UnsafeMutableBufferPointer<UInt8> = .init(start: nil, count: 0)
    private var ringColumns: ClosedRange<Int> = 0...0
    private var ringWeights: ColumnWeights?
    private var blockCodes: UnsafeMutableBufferPointer<UInt8> = .init(start: nil, count: 0)  // a block's input
    private var blockFirstPass: UnsafeMutableBufferPointer<UInt8> = .init(start: nil, count: 0)  // its I1, skewed
    private var spill: TileSpill?
    private let firstPassRow: UnsafeMutableBufferPointer<UInt8>  // one row of I1
    /// The input row `firstPassRow` was made from (rows past the input's edges repeat it).
    private var firstPassSource: Int?
    private var nextFirstPassRow: Int?  // the band's next row of I1 to make
    private var nextOutputY: Int
    private var stripTop: Int
    private var stripRows = 0

    init(
        upstream: any LinearRowSource, step: ResampleStep, output: PixelRect, plan: ResamplePlan,
        spillDirectory: String, isCancelled: @escaping @Sendable () -> Bool
    ) {
        guard let turn = ShearedTurn(map: step.map) else { preconditionFailure("the plan shears only turns ≤ 45°") }
        self.turn = turn
        fill = ShearedFill(step)
        region = output
        input = upstream.region
        canvas = step.canvas
        pull = UpstreamCodes(upstream)
        mode = plan.mode
        self.spillDirectory = spillDirectory
        self.isCancelled = isCancelled
        inputColumns = (input.x - canvas.x)...(input.maxX - 1 - canvas.x)
        inputRows = (input.y - canvas.y)...(input.maxY - 1 - canvas.y)
        switch plan.mode {
        case .band(let rows):
            buffer = .init(start: nil, count: 0)
            ringColumns = turn.columns(for: output)
            ring = .allocate(capacity: rows * ringColumns.count * 3)
            ringWeights = ColumnWeights(turn, columns: ringColumns)
            secondPass = .allocate(capacity: ringColumns.count * 3)
            firstPassRow = .allocate(capacity: ringColumns.count * 3)
        case .tiles(_, let block, _, _):
            buffer = .allocate(capacity: block * output.width * 3)
            let sides = Self.blockSides(turn, block: block)
            blockCodes = .allocate(capacity: sides.inputColumns * sides.rows * 3)
            blockFirstPass = .allocate(capacity: sides.columns * (block + ShearKernels.taps - 1) * 3)
            secondPass = .allocate(capacity: sides.columns * 3)
            firstPassRow = .allocate(capacity: sides.columns * 3)
        }
        nextOutputY = output.y
        stripTop = output.y
    }

    deinit {
        buffer.deallocate()
        secondPass.deallocate()
        firstPassRow.deallocate()
        ring.deallocate()
        blockCodes.deallocate()
        blockFirstPass.deallocate()
    }

    /// The band's ring: skewed rows of I1 enough for an output row (its taps, and the slant
    /// across the columns: row R is made once the last column's skewed row needs it), and
    /// its columns.
    static func band(_ turn: ShearedTurn, output: PixelRect) -> (rows: Int, columns: Int) {
        let columns = turn.columns(for: output)
        let first = ShearKernels.tap(turn.secondPass(column: columns.lowerBound)).shift
        let last = ShearKernels.tap(turn.secondPass(column: columns.upperBound)).shift
        return (ShearKernels.taps + abs(last - first) + 1, columns.count)
    }

    /// The most columns of I1 and I2, rows of I1, and input columns a block of `block`² output
    /// pixels reads, wherever it lies: each reach is its slant plus the taps, with a pixel's
    /// rounding either way.
    static func blockSides(_ turn: ShearedTurn, block: Int) -> (columns: Int, rows: Int, inputColumns: Int) {
        func slant(_ shear: Int64, _ length: Int) -> Int {
            Int((Double(shear.magnitude) / BicubicSampler.unit * Double(length)).rounded(.up))
        }
        let columns = block + slant(turn.alpha, block) + 5
        let rows = block + slant(turn.beta, columns) + 5
        return (columns, rows, columns + slant(turn.alpha, rows) + 5)
    }

    func nextRow(into row: UnsafeMutablePointer<Float>) throws {
        preconditionFailure("a sheared turn makes codes only: the plan shears a lone turn")
    }

    func nextCodes(into row: UnsafeMutablePointer<UInt8>) throws {
        defer { nextOutputY += 1 }
        switch mode {
        case .band(let slots):
            try makeBandRow(slots: slots, into: row)
        case .tiles(let tile, let block, let kind, _):
            if nextOutputY == stripTop + stripRows {
                if spill == nil {
                    spill = try TileSpill(
                        filledFrom: pull, tile: tile, kind: kind, directory: spillDirectory, isCancelled: isCancelled)
                }
                try makeStrip(block: block)
            }
            row.update(from: buffer.baseAddress! + (nextOutputY - stripTop) * region.width * 3, count: region.width * 3)
        }
    }

    /// Input rows (canvas) `rect`'s output reads, within the input.
    private func neededRows(_ rect: PixelRect) -> ClosedRange<Int> {
        turn.rows(for: rect).clamped(to: inputRows)
    }

    /// The skewed rows the second pass reads for the output rows `rows`.
    private static func skewedRows(_ rows: Range<Int>) -> ClosedRange<Int> {
        (rows.lowerBound - 1)...(rows.upperBound + 1)
    }

    /// Rows R of I1 whose skewed copies fill `wanted` for columns with `shifts`: row R lands
    /// in skewed rows R − shift.
    private static func firstPassRows(for wanted: ClosedRange<Int>, shifts: ClosedRange<Int>) -> ClosedRange<Int> {
        (wanted.lowerBound + shifts.lowerBound)...(wanted.upperBound + shifts.upperBound)
    }

    /// I1's rows `rows` for the columns `weights` covers, into the skewed rows of `skewed` in
    /// `wanted`: each from input row R clamped to the input's rows (so rows past the input's
    /// first and last repeat them, as the 2D sampler's taps do), whose codes `input` gives.
    private func firstPass(
        rows: ClosedRange<Int>, weights: ColumnWeights, into skewed: ShearKernels.Skewed, wanted: ClosedRange<Int>,
        available: ClosedRange<Int>, input: (Int) throws -> UnsafePointer<UInt8>
    ) rethrows {
        let columns = weights.columns
        for row in rows {
            let source = min(max(row, inputRows.lowerBound), inputRows.upperBound)
            if firstPassSource != source {
                ShearKernels.along(
                    try input(source), available: available, position: turn.firstPass(row: source),
                    columns: columns.lowerBound..<(columns.upperBound + 1), into: firstPassRow.baseAddress!)
                firstPassSource = source
            }
            ShearKernels.scatter(firstPassRow.baseAddress!, row: row, weights: weights, into: skewed, wanted: wanted)
        }
    }

    /// The output rows of `rect` from the skewed rows of I1: the second pass into
    /// `secondPass`, the third into `target`, row i at i · `stride` codes, then the fill.
    private func makeRows(
        _ rect: PixelRect, from skewed: ShearKernels.Skewed, weights: ColumnWeights,
        into target: UnsafeMutablePointer<UInt8>, stride: Int
    ) {
        for y in rect.y..<rect.maxY {
            let columns = turn.columns(for: PixelRect(x: rect.x, y: y, width: rect.width, height: 1))
            ShearKernels.down(skewed, row: y, columns: columns, weights: weights, into: secondPass.baseAddress!)
            let row = target + (y - rect.y) * stride
            ShearKernels.along(
                secondPass.baseAddress!, available: columns, position: turn.thirdPass(row: y),
                columns: rect.x..<rect.maxX, into: row)
            fill?.mix(row: y, columns: rect.x..<rect.maxX, into: row)
        }
    }

    // MARK: Band

    /// The next output row, straight into `target`, once the skewed rows it reads are made
    /// from the input rows as they arrive.
    private func makeBandRow(slots: Int, into target: UnsafeMutablePointer<UInt8>) throws {
        let output = PixelRect(x: region.x, y: nextOutputY, width: region.width, height: 1)
        let weights = ringWeights!
        let skewed = ShearKernels.Skewed(
            pixels: ring.baseAddress!, firstColumn: ringColumns.lowerBound, stride: ringColumns.count * 3,
            baseRow: region.y - 1, slots: slots)
        let all = Self.skewedRows(region.y..<region.maxY)
        let needed = Self.firstPassRows(for: Self.skewedRows(output.y..<output.maxY), shifts: weights.shifts)
        let rows = nextFirstPassRow ?? Self.firstPassRows(for: all, shifts: weights.shifts).lowerBound
        precondition(
            needed.upperBound - weights.shifts.lowerBound - (output.y - 1) < slots,
            "the plan's ring holds every skewed row a row reads")
        if rows <= needed.upperBound {
            try firstPass(
                rows: rows...needed.upperBound, weights: weights, into: skewed, wanted: all, available: inputColumns
            ) { row in
                while pull.nextY - canvas.y < row { _ = try pull.next() }
                return try pull.next()
            }
            nextFirstPassRow = needed.upperBound + 1
        }
        makeRows(output, from: skewed, weights: weights, into: target, stride: region.width * 3)
    }

    // MARK: Tiles

    /// The next strip, block by block: each block's input read from the spill, then its passes.
    private func makeStrip(block: Int) throws {
        guard let spill else { preconditionFailure("spill not filled") }
        stripTop = nextOutputY
        stripRows = min(block, region.maxY - stripTop)
        for blockX in stride(from: region.x, to: region.maxX, by: block) {
            if isCancelled() { throw RenderError.cancelled }
            let rect = PixelRect(x: blockX, y: stripTop, width: min(block, region.maxX - blockX), height: stripRows)
            let columns = turn.columns(for: rect)
            let rows = neededRows(rect)
            let readColumns = turn.inputColumns(rows: rows, columns: columns).clamped(to: inputColumns)
            let wanted = Self.skewedRows(rect.y..<rect.maxY)
            precondition(
                readColumns.count * rows.count * 3 <= blockCodes.count
                    && columns.count * wanted.count * 3 <= blockFirstPass.count
                    && columns.count * 3 <= firstPassRow.count, "the plan's block sides hold every block")
            let read = PixelRect(
                x: readColumns.lowerBound + canvas.x - input.x, y: rows.lowerBound + canvas.y - input.y,
                width: readColumns.count, height: rows.count)
            let codes = blockCodes.baseAddress!
            try spill.read(read) { from, x, y, count in
                (codes + ((y - read.y) * read.width + x - read.x) * 3).update(from: from, count: count * 3)
            }
            let weights = ColumnWeights(turn, columns: columns)
            firstPassSource = nil
            let skewed = ShearKernels.Skewed(
                pixels: blockFirstPass.baseAddress!, firstColumn: columns.lowerBound, stride: columns.count * 3,
                baseRow: wanted.lowerBound, slots: wanted.count)
            firstPass(
                rows: Self.firstPassRows(for: wanted, shifts: weights.shifts), weights: weights, into: skewed,
                wanted: wanted, available: readColumns
            ) { row in UnsafePointer(codes + (row - rows.lowerBound) * read.width * 3) }
            makeRows(
                rect, from: skewed, weights: weights, into: buffer.baseAddress! + (rect.x - region.x) * 3,
                stride: region.width * 3)
        }
    }
}
