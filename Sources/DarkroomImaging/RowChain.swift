/// Rows of linear-light floats of one region, produced top to bottom. Renders with
/// neighbourhood operations run as a chain of these: each stage pulls the rows it needs
/// from the one before, so only a halo of rows is ever held.
protocol LinearRowSource: AnyObject {
    var region: PixelRect { get }
    /// Writes the next row: `region.width * 3` floats.
    func nextRow(into row: UnsafeMutablePointer<Float>) throws
}

/// A lone turn sampled in the input's 8-bit codes (`SampleSpace.codes`): its rows are the
/// output's, in codes, with no trip through linear light.
protocol CodeRowSource: LinearRowSource {
    /// Writes the next row: `region.width * 3` codes.
    func nextCodes(into row: UnsafeMutablePointer<UInt8>) throws
}

/// A resampling step's input rows quantised to 8-bit sRGB as they arrive, as the encoder would
/// quantise them. Straight from the decoder when nothing comes before (the same codes: sRGB →
/// linear → sRGB gives them back).
final class UpstreamCodes {
    private let upstream: any LinearRowSource
    private let pulled: UnsafeMutableBufferPointer<Float>
    private let codes: UnsafeMutableBufferPointer<UInt8>
    /// The row (in the upstream's frame) the next `next()` returns.
    private(set) var nextY: Int
    /// The rows it gives, in the upstream's frame.
    var region: PixelRect { upstream.region }

    /// What it holds: an upstream row in floats and in codes.
    static func bytes(width: Int) -> Int { width * (12 + 3) }

    init(_ upstream: any LinearRowSource) {
        self.upstream = upstream
        pulled = .allocate(capacity: upstream.region.width * 3)
        codes = .allocate(capacity: upstream.region.width * 3)
        nextY = upstream.region.y
    }

    deinit {
        pulled.deallocate()
        codes.deallocate()
    }

    /// The next input row's codes, valid until the next call.
    func next() throws -> UnsafePointer<UInt8> {
        nextY += 1
        if let decoded = upstream as? DecodedRows { return try decoded.nextCodes() }
        try upstream.nextRow(into: pulled.baseAddress!)
        SRGB.encode(pulled.baseAddress!, into: codes.baseAddress!, count: codes.count)
        return UnsafePointer(codes.baseAddress!)
    }
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

    /// The next row as decoded, 8-bit sRGB (what `nextRow` gives, before it goes to linear
    /// light), where the decoder left it: valid until the next call.
    func nextCodes() throws -> UnsafePointer<UInt8> {
        if nextInStrip == stripRows {
            stripRows = try wrap { try source.nextStrip(into: strip) }
            nextInStrip = 0
            precondition(stripRows > 0, "asked for more rows than the region has")
        }
        defer { nextInStrip += 1 }
        return UnsafePointer(strip.baseAddress!.assumingMemoryBound(to: UInt8.self) + nextInStrip * region.width * 3)
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
                let resample = resamplings.next()!
                if resample.method == .shears {
                    chain = ShearedRows(
                        upstream: chain, step: step, output: output, plan: resample,
                        spillDirectory: spillDirectory, isCancelled: isCancelled)
                } else {
                    chain = ResampledRows(
                        upstream: chain, step: step, output: output, plan: resample, spillDirectory: spillDirectory,
                        isCancelled: isCancelled)
                }
            }
        }
        return chain
    }
}
