/// The color operations of a plan, applied in place to 8-bit strips a few rows at a time
/// so the floats stay in cache.
struct StripColor {
    let steps: [PlacedOperation]
    let width: Int
    let chunkHeight: Int

    init(plan: RenderPlan) {
        self.init(steps: plan.geometry.steps, width: plan.geometry.outputSize.width, maxRows: plan.stripHeight)
    }

    init(steps: [PlacedOperation], width: Int, maxRows: Int) {
        self.steps = steps
        self.width = width
        chunkHeight = Self.chunkHeight(width: width, maxRows: maxRows)
    }

    /// Rows per pass through the color operations: about 48K floats (192 KB), which
    /// stays in a core's L2 cache. (Smaller, L1-sized chunks measured no faster: the
    /// passes are bound by arithmetic and table lookups, not by cache traffic.)
    static func chunkHeight(width: Int, maxRows: Int) -> Int {
        min(maxRows, max(1, 16_384 / max(width, 1)))
    }

    /// No color operation: 8-bit values go straight through (the round trip through
    /// linear light would give back the same codes anyway).
    func apply(to strip: UnsafeMutableRawBufferPointer, rows: Int, firstRow: Int) {
        guard !steps.isEmpty else { return }
        let linear = UnsafeMutableBufferPointer<Float>.allocate(capacity: width * chunkHeight * 3)
        defer { linear.deallocate() }
        let bytes = strip.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var chunkStart = 0
        while chunkStart < rows {
            let chunkRows = min(chunkHeight, rows - chunkStart)
            let codes = bytes + chunkStart * width * 3
            let samples = chunkRows * width * 3
            SRGB.decode(codes, into: linear.baseAddress!, count: samples)
            let chunk = LinearStrip(pixels: linear, width: width, rows: chunkRows, firstRow: firstRow + chunkStart)
            for step in steps { ColorKernels.apply(step, to: chunk) }
            SRGB.encode(linear.baseAddress!, into: codes, count: samples)
            chunkStart += chunkRows
        }
    }
}
