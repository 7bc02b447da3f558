/// How one rotation or orientation holds its input, and what that costs.
public struct ResamplePlan: Sendable, Equatable, CustomStringConvertible {
    public enum Mode: Sendable, Equatable {
        /// A ring of this many input rows slides down the image.
        case band(rows: Int)
        /// The input waits in a spill of `tile`² tiles; output is made in `block`² blocks.
        case tiles(tile: Int, block: Int, spill: SpillKind, spillBytes: Int)
    }

    /// How it interpolates.
    public enum Method: String, Sendable, Equatable {
        /// Catmull-Rom in 2D, 16 taps a pixel (`BicubicSampler`).
        case bicubic
        /// Three 1D Catmull-Rom passes (`ShearedTurn`), 12 taps a pixel in 16-bit lanes.
        case shears
    }

    public var mode: Mode
    public var method: Method
    /// What it interpolates: linear light, or the input's own codes when it is all the render does.
    public var space: SampleSpace
    /// Bytes its own buffers hold (a spill in memory included).
    public var bytes: Int

    /// Spill tiles: 12 KiB each, small enough that a block's footprint wastes little of them.
    static let tileSide = 64
    /// A band makes this many output rows at a time, in blocks this wide: the input rows one
    /// block reads (about two dozen rows of 64 pixels, 16 bytes each: some 24 KiB) stay in the
    /// L1 cache while it is made.
    static let bandStripRows = 16
    static let bandBlockColumns = 64

    public var description: String {
        switch mode {
        case .band(let rows):
            "band of \(rows) \(method == .shears ? "skewed rows of the first pass" : "input rows"), \(how), "
                + ByteCount.format(bytes)
        case .tiles(let tile, let block, let spill, let spillBytes):
            "spill (\(spill.rawValue), \(ByteCount.format(spillBytes))) of \(tile)×\(tile) tiles, "
                + "output in \(block)×\(block) blocks, \(how), \(ByteCount.format(bytes))"
        }
    }

    private var how: String { (method == .shears ? "three shears, " : "") + Self.spaceName(space) }

    static func spaceName(_ space: SampleSpace) -> String {
        space == .codes ? "sampled in 8-bit codes" : "sampled in linear light"
    }

    /// Codes when the render is this one step and nothing else (no colour operation, no blur,
    /// no other turn): the output's codes then come straight from the input's, as a crop's do,
    /// without the trip through linear light and back. Anything else samples linear light, the
    /// space the operations around it work in.
    static func space(for geometry: RenderGeometry) -> SampleSpace {
        if geometry.stages.count == 1, case .resample = geometry.stages[0] { return .codes }
        return .linear
    }

    /// Three shears for a lone turn by at most 45°, in codes: a quarter of the 2D sampler's work.
    /// Beside colour operations (linear light), past 45° or mirrored, the 2D sampler.
    static func method(for step: ResampleStep, space: SampleSpace) -> Method {
        space == .codes && ShearedTurn(map: step.map) != nil ? .shears : .bicubic
    }

    /// The band when output rows read input rows in order and it fits in `available` bytes,
    /// else tiles (in memory when the whole spill fits in `spillRoom`).
    static func plan(
        step: ResampleStep, input: PixelRect, output: PixelRect, height: Int, available: Int, spillRoom: Int,
        space: SampleSpace
    ) -> ResamplePlan {
        let method = method(for: step, space: space)
        // Both ways pull an upstream row in floats and quantise it (`UpstreamCodes`).
        let rowBytes = UpstreamCodes.bytes(width: input.width)
        let strip = min(bandStripRows, output.height)
        let block = height
        let tile = tileSide
        let spillBytes = TileSpill.bytes(input.size, tile: tile)
        let band: (rows: Int, bytes: Int)?
        let working: Int
        switch method {
        case .bicubic:
            // Input held for sampling is four floats a pixel (`BicubicSampler.decode`); output,
            // three floats or three codes.
            let outputPixel = space == .codes ? 3 : 12
            let slant = abs(step.map.c) * Double(max(output.width - 1, 0)) + abs(step.map.d) * Double(strip - 1)
            let rows = min(Int(slant.rounded(.up)) + 16, input.height)  // `PixelAffine.footprint`'s reach
            band = step.streamsRows ? (rows, rows * input.width * 16 + strip * output.width * outputPixel) : nil
            let footprint = footprintSide(step.map, block: block)
            working = block * output.width * outputPixel + footprint.width * footprint.height * 16
        case .shears:
            // Skewed rows of the first pass in codes, a row of it and of the second pass, the
            // second pass's weights; output rows go straight out.
            let turn = ShearedTurn(map: step.map)!
            let ring = ShearedRows.band(turn, output: output)
            band = (ring.rows, (ring.rows + 2) * ring.columns * 3 + ColumnWeights.bytes(columns: ring.columns))
            let sides = ShearedRows.blockSides(turn, block: block)
            working =
                block * output.width * 3 + sides.inputColumns * sides.rows * 3
                + sides.columns * (block + ShearKernels.taps + 1) * 3
                + ColumnWeights.bytes(columns: sides.columns)
        }
        if let band, band.bytes + rowBytes <= available {
            return ResamplePlan(
                mode: .band(rows: band.rows), method: method, space: space, bytes: band.bytes + rowBytes)
        }
        let tiles = working + rowBytes + TileSpill.workingBytes(width: input.width, tile: tile)
        let inMemory = tiles + spillBytes <= spillRoom
        return ResamplePlan(
            mode: .tiles(tile: tile, block: block, spill: inMemory ? .memory : .file, spillBytes: spillBytes),
            method: method, space: space, bytes: tiles + (inMemory ? spillBytes : 0))
    }

    /// The most input pixels a `block`² block of output can read (taps and rounding included).
    static func footprintSide(_ map: PixelAffine, block: Int) -> PixelSize {
        let side = Double(block - 1)
        return PixelSize(
            width: Int(((abs(map.a) + abs(map.b)) * side).rounded(.up)) + 16,
            height: Int(((abs(map.c) + abs(map.d)) * side).rounded(.up)) + 16)
    }
}
