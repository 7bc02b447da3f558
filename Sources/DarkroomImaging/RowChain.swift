/// Rows of linear-light floats of one region, produced top to bottom. Renders with
/// neighbourhood operations run as a chain of these: each stage pulls the rows it needs
/// from the one before, so only a halo of rows is ever held.
protocol LinearRowSource: AnyObject {
    var region: PixelRect { get }
    /// Writes the next row: `region.width * 3` floats.
    func nextRow(into row: UnsafeMutablePointer<Float>) throws
}

/// The decoded, oriented pixels of the render's read rectangle, in linear light.
final class DecodedRows: LinearRowSource {
    let region: PixelRect
    private let source: OrientedRowSource
    private let strip: UnsafeMutableRawBufferPointer
    private var stripRows = 0
    private var nextInStrip = 0

    init(source: OrientedRowSource, region: PixelRect, stripHeight: Int) {
        self.source = source
        self.region = region
        strip = .allocate(byteCount: region.width * stripHeight * 3, alignment: 16)
    }

    deinit { strip.deallocate() }

    func nextRow(into row: UnsafeMutablePointer<Float>) throws {
        if nextInStrip == stripRows {
            stripRows = try wrap { try source.nextStrip(into: strip) }
            nextInStrip = 0
            precondition(stripRows > 0, "asked for more rows than the region has")
        }
        let rowBytes = region.width * 3
        SRGB.decode(
            strip.baseAddress!.assumingMemoryBound(to: UInt8.self) + nextInStrip * rowBytes, into: row, count: rowBytes)
        nextInStrip += 1
    }

    /// The next row as decoded, 8-bit sRGB (what `nextRow` gives, before it goes to linear light).
    func nextCodes(into codes: UnsafeMutablePointer<UInt8>) throws {
        if nextInStrip == stripRows {
            stripRows = try wrap { try source.nextStrip(into: strip) }
            nextInStrip = 0
            precondition(stripRows > 0, "asked for more rows than the region has")
        }
        let rowBytes = region.width * 3
        codes.update(
            from: strip.baseAddress!.assumingMemoryBound(to: UInt8.self) + nextInStrip * rowBytes, count: rowBytes)
        nextInStrip += 1
    }
}

/// Color operations applied in place to each row from upstream.
final class ColorRows: LinearRowSource {
    let region: PixelRect
    private let upstream: any LinearRowSource
    private let steps: [PlacedOperation]
    private var rowIndex = 0

    init(upstream: any LinearRowSource, steps: [PlacedOperation]) {
        self.upstream = upstream
        self.steps = steps
        region = upstream.region
    }

    func nextRow(into row: UnsafeMutablePointer<Float>) throws {
        try upstream.nextRow(into: row)
        let strip = LinearStrip(
            pixels: UnsafeMutableBufferPointer(start: row, count: region.width * 3),
            width: region.width, rows: 1, firstRow: rowIndex)
        for step in steps { ColorKernels.apply(step, to: strip) }
        rowIndex += 1
    }
}

/// Builds the chain for a plan's stages on top of the decoded rows.
enum RowChain {
    static func build(
        plan: RenderPlan, source: OrientedRowSource, spillDirectory: String,
        isCancelled: @escaping @Sendable () -> Bool
    ) -> any LinearRowSource {
        var chain: any LinearRowSource = DecodedRows(
            source: source, region: plan.geometry.readRect, stripHeight: plan.stripHeight)
        var resamplings = plan.resampling.makeIterator()
        for stage in plan.geometry.stages {
            switch stage {
            case .color(let steps, _):
                chain = ColorRows(upstream: chain, steps: steps)
            case .neighbourhood(let operation, let canvas, _, let output):
                chain = GaussianRows(upstream: chain, operation: operation, canvas: canvas, output: output)
            case .resample(let step, _, let output):
                chain = ResampledRows(
                    upstream: chain, step: step, output: output, plan: resamplings.next()!,
                    spillDirectory: spillDirectory, isCancelled: isCancelled)
            }
        }
        return chain
    }
}
