/// Downscales rows as they stream past, averaging in linear light over the exact area each
/// output pixel covers (a box filter with fractional edges). Every input pixel contributes
/// to at most two output columns and rows, so one pass over the rows is enough and only
/// one output row of sums is held.
public struct AreaResampler: Sendable {
    public let source: PixelSize
    public let target: PixelSize
    /// For each output column: the first input column and the weights of the input columns
    /// it covers (the fractions of each input pixel inside it, scaled to sum to 1).
    let columnSpans: [Span]
    let rowSpans: [Span]

    struct Span: Sendable, Equatable {
        var first: Int
        var weights: [Float]
    }

    /// The size whose longest side is `longestSide`, keeping the aspect ratio; never larger
    /// than `size` and never below 1 pixel.
    public static func displaySize(of size: PixelSize, longestSide: Int) -> PixelSize {
        let longest = max(size.width, size.height)
        guard longest > longestSide else { return size }
        let scale = Double(longestSide) / Double(longest)
        return PixelSize(
            width: max(1, Int((Double(size.width) * scale).rounded())),
            height: max(1, Int((Double(size.height) * scale).rounded())))
    }

    public init(source: PixelSize, target: PixelSize) {
        precondition(target.width <= source.width && target.height <= source.height, "only downscaling")
        self.source = source
        self.target = target
        columnSpans = Self.spans(from: source.width, to: target.width)
        rowSpans = Self.spans(from: source.height, to: target.height)
    }

    static func spans(from inputCount: Int, to outputCount: Int) -> [Span] {
        let ratio = Double(inputCount) / Double(outputCount)
        return (0..<outputCount).map { index in
            let start = Double(index) * ratio
            let end = Double(index + 1) * ratio
            let first = Int(start.rounded(.down))
            let last = min(inputCount - 1, Int(end.rounded(.up)) - 1)
            let weights = (first...last).map { pixel in
                Float((min(end, Double(pixel + 1)) - max(start, Double(pixel))) / ratio)
            }
            return Span(first: first, weights: weights)
        }
    }

    /// Output rows an input row contributes to, with its weight in each.
    func contributions(ofRow row: Int) -> [(outputRow: Int, weight: Float)] {
        var result: [(Int, Float)] = []
        let ratio = Double(source.height) / Double(target.height)
        let candidate = Int(Double(row) / ratio)
        for output in max(0, candidate - 1)...min(target.height - 1, candidate + 1) {
            let span = rowSpans[output]
            let offset = row - span.first
            if offset >= 0, offset < span.weights.count { result.append((output, span.weights[offset])) }
        }
        return result
    }
}

/// Feeds rows of linear light into an `AreaResampler` and hands finished 8-bit rows of the
/// smaller image to `emit`, in order.
final class StreamingDownscaler {
    private let resampler: AreaResampler
    private let emit: (UnsafePointer<UInt8>) throws -> Void
    private var sums: [UnsafeMutableBufferPointer<Float>]  // one accumulator per open output row
    private var openRows: [Int]
    private let reducedRow: UnsafeMutableBufferPointer<Float>
    private let encodedRow: UnsafeMutableBufferPointer<UInt8>
    private var nextInputRow = 0

    /// The column spans flattened for the per-row loop: output column `c` sums input columns
    /// `columnFirst[c] ..< columnFirst[c] + (weightStart[c + 1] - weightStart[c])` with the
    /// weights `columnWeights[weightStart[c]...]` (no array of arrays in the hot loop).
    private let columnFirst: UnsafeMutableBufferPointer<Int>
    private let weightStart: UnsafeMutableBufferPointer<Int>
    private let columnWeights: UnsafeMutableBufferPointer<Float>

    init(resampler: AreaResampler, emit: @escaping (UnsafePointer<UInt8>) throws -> Void) {
        self.resampler = resampler
        self.emit = emit
        sums = []
        openRows = []
        reducedRow = .allocate(capacity: resampler.target.width * 3)
        encodedRow = .allocate(capacity: resampler.target.width * 3)
        let spans = resampler.columnSpans
        columnFirst = .allocate(capacity: spans.count)
        weightStart = .allocate(capacity: spans.count + 1)
        columnWeights = .allocate(capacity: spans.reduce(0) { $0 + $1.weights.count })
        var next = 0
        for (column, span) in spans.enumerated() {
            columnFirst[column] = span.first
            weightStart[column] = next
            for weight in span.weights {
                columnWeights[next] = weight
                next += 1
            }
        }
        weightStart[spans.count] = next
    }

    deinit {
        for sum in sums { sum.deallocate() }
        reducedRow.deallocate()
        encodedRow.deallocate()
        columnFirst.deallocate()
        weightStart.deallocate()
        columnWeights.deallocate()
    }

    /// Adds one row of `source.width * 3` linear floats (`RenditionFan` decodes each row once
    /// for every downscaler it feeds).
    func add(linearRow: UnsafePointer<Float>) throws {
        reduceColumns(linearRow)
        for (output, weight) in resampler.contributions(ofRow: nextInputRow) {
            let sum = accumulator(for: output).baseAddress!
            let reduced = UnsafePointer(reducedRow.baseAddress!)
            for index in 0..<reducedRow.count { sum[index] += weight * reduced[index] }
        }
        nextInputRow += 1
        try flushFinishedRows()
    }

    /// Same sums in the same order as a loop over `columnSpans`, so the result is unchanged.
    private func reduceColumns(_ input: UnsafePointer<Float>) {
        let output = reducedRow.baseAddress!
        let firsts = columnFirst.baseAddress!
        let starts = weightStart.baseAddress!
        let weights = columnWeights.baseAddress!
        for column in 0..<columnFirst.count {
            var r: Float = 0
            var g: Float = 0
            var b: Float = 0
            var pixel = input + firsts[column] * 3
            for index in starts[column]..<starts[column + 1] {
                let weight = weights[index]
                r += weight * pixel[0]
                g += weight * pixel[1]
                b += weight * pixel[2]
                pixel += 3
            }
            output[column * 3] = r
            output[column * 3 + 1] = g
            output[column * 3 + 2] = b
        }
    }

    private func accumulator(for output: Int) -> UnsafeMutableBufferPointer<Float> {
        if let index = openRows.firstIndex(of: output) { return sums[index] }
        let sum = UnsafeMutableBufferPointer<Float>.allocate(capacity: resampler.target.width * 3)
        sum.initialize(repeating: 0)
        openRows.append(output)
        sums.append(sum)
        return sum
    }

    /// Output rows whose last input row has been added are encoded and emitted.
    private func flushFinishedRows() throws {
        while let first = openRows.first {
            let span = resampler.rowSpans[first]
            guard nextInputRow >= span.first + span.weights.count else { return }
            let sum = sums.removeFirst()
            openRows.removeFirst()
            SRGB.encode(sum.baseAddress!, into: encodedRow.baseAddress!, count: sum.count)
            sum.deallocate()
            try emit(encodedRow.baseAddress!)
        }
    }
}
