/// How one rotation or orientation holds its input, and what that costs.
public struct ResamplePlan: Sendable, Equatable, CustomStringConvertible {
    public enum Mode: Sendable, Equatable {
        /// A ring of this many input rows slides down the image.
        case band(rows: Int)
        /// The input waits in a spill of `tile`² tiles; output is made in `block`² blocks.
        case tiles(tile: Int, block: Int, spill: SpillKind, spillBytes: Int)
    }

    public var mode: Mode
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
            "band of \(rows) input rows, \(Self.spaceName(space)), \(ByteCount.format(bytes))"
        case .tiles(let tile, let block, let spill, let spillBytes):
            "spill (\(spill.rawValue), \(ByteCount.format(spillBytes))) of \(tile)×\(tile) tiles, "
                + "output in \(block)×\(block) blocks, \(Self.spaceName(space)), \(ByteCount.format(bytes))"
        }
    }

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

    /// The band when output rows read input rows in order and it fits in `available` bytes,
    /// else tiles (in memory when the whole spill fits in `spillRoom`).
    static func plan(
        step: ResampleStep, input: PixelRect, output: PixelRect, height: Int, available: Int, spillRoom: Int,
        space: SampleSpace
    ) -> ResamplePlan {
        // Both ways pull an upstream row in floats and quantise it; input held for sampling
        // is four floats a pixel (`BicubicSampler.decode`); output, three floats or three codes.
        let rowBytes = input.width * (12 + 3)
        let outputPixel = space == .codes ? 3 : 12
        if step.streamsRows {
            let strip = min(bandStripRows, output.height)
            let slant = abs(step.map.c) * Double(max(output.width - 1, 0)) + abs(step.map.d) * Double(strip - 1)
            let rows = min(Int(slant.rounded(.up)) + 8, input.height)
            let bytes = rows * input.width * 16 + strip * output.width * outputPixel + rowBytes
            if bytes <= available { return ResamplePlan(mode: .band(rows: rows), space: space, bytes: bytes) }
        }
        let tile = tileSide
        let block = height
        let footprint = footprintSide(step.map, block: block)
        let tiles = ((input.width + tile - 1) / tile) * ((input.height + tile - 1) / tile)
        let spillBytes = tiles * tile * tile * 3
        let working =
            rowBytes + tile * input.width * 3 + 2 * tile * tile * 3 + block * output.width * outputPixel
            + footprint.width * footprint.height * 16
        let inMemory = working + spillBytes <= spillRoom
        return ResamplePlan(
            mode: .tiles(tile: tile, block: block, spill: inMemory ? .memory : .file, spillBytes: spillBytes),
            space: space, bytes: working + (inMemory ? spillBytes : 0))
    }

    /// The most input pixels a `block`² block of output can read (taps and rounding included).
    static func footprintSide(_ map: PixelAffine, block: Int) -> PixelSize {
        let side = Double(block - 1)
        return PixelSize(
            width: Int(((abs(map.a) + abs(map.b)) * side).rounded(.up)) + 8,
            height: Int(((abs(map.c) + abs(map.d)) * side).rounded(.up)) + 8)
    }
}
