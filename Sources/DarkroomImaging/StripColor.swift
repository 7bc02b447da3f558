/// The color operations of a plan, applied in place to 8-bit strips a few rows at a time
/// so the floats stay in cache.
struct StripColor {
    let steps: [PlacedOperation]
    let route: Route
    let width: Int
    let chunkHeight: Int

    /// Where the colour operations meet the strip's 8-bit codes; decided here only. A filter
    /// looks up sRGB-encoded values, which the decoded codes are (exactly `code/255`), so a
    /// filter that runs first reads the codes rather than their linear values encoded again.
    enum Route: Equatable {
        /// Codes decoded to linear light, every step run there, encoded back.
        case linear
        /// The first step is a filter on the codes, writing linear light for the rest (if any).
        case filterFirst(FilterStep)
        /// The only step is a filter at full intensity: codes in, rounded codes out.
        case filterOnCodes(FilterStep)
    }

    static func route(_ steps: [PlacedOperation]) -> Route {
        guard case .filter(let filter) = steps.first?.operation, filter.table != nil else { return .linear }
        return steps.count == 1 && filter.intensity == 1 ? .filterOnCodes(filter) : .filterFirst(filter)
    }

    init(plan: RenderPlan) {
        self.init(steps: plan.geometry.steps, width: plan.geometry.outputSize.width, maxRows: plan.stripHeight)
    }

    init(steps: [PlacedOperation], width: Int, maxRows: Int) {
        self.steps = steps
        route = Self.route(steps)
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
        let bytes = strip.baseAddress!.assumingMemoryBound(to: UInt8.self)
        switch route {
        case .linear:
            inLinearLight(bytes, rows: rows, firstRow: firstRow, first: nil)
        case .filterFirst(let filter):
            LUTCodeKernel.with(filter) { kernel in
                inLinearLight(bytes, rows: rows, firstRow: firstRow, first: kernel)
            }
        case .filterOnCodes(let filter):
            LUTCodeKernel.with(filter) { $0.apply(codes: bytes, count: rows * width) }
        }
    }

    /// Chunk by chunk: the codes to linear light (through the filter `first`, which is then
    /// `steps[0]`, or decoded), the steps, and back to codes.
    private func inLinearLight(
        _ bytes: UnsafeMutablePointer<UInt8>, rows: Int, firstRow: Int, first: LUTCodeKernel.Bound?
    ) {
        let linear = UnsafeMutableBufferPointer<Float>.allocate(capacity: width * chunkHeight * 3)
        defer { linear.deallocate() }
        var chunkStart = 0
        while chunkStart < rows {
            let chunkRows = min(chunkHeight, rows - chunkStart)
            let codes = bytes + chunkStart * width * 3
            let samples = chunkRows * width * 3
            if let first {
                first.apply(codes: codes, count: chunkRows * width, into: linear.baseAddress!)
            } else {
                SRGB.decode(codes, into: linear.baseAddress!, count: samples)
            }
            let chunk = LinearStrip(pixels: linear, width: width, rows: chunkRows, firstRow: firstRow + chunkStart)
            for step in steps.dropFirst(first == nil ? 0 : 1) { ColorKernels.apply(step, to: chunk) }
            SRGB.encode(linear.baseAddress!, into: codes, count: samples)
            chunkStart += chunkRows
        }
    }
}
