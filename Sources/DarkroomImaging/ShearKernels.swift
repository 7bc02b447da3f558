/// The passes of a `ShearedTurn`: Catmull-Rom in 8-bit codes, 3 a pixel, with weights in
/// 128ths, 16 codes at a time in 16-bit lanes.
///
/// Why Catmull-Rom, the 2D sampler's kernel: against Photos' own renders, which judge a
/// straighten, three passes of it land 0.3 dB from the 2D sampler, where three Lanczos-3
/// passes land 1.6 dB from it (and cost 7 % more CPU), though nearer the truth
/// (docs/rendering.md has the measurements).
///
/// Why 128ths: a code times a weight, summed, spans −0.125·255·128 … 1.125·255·128 (the
/// kernel's lobes at worst), under 2¹⁶, so the sums wrap in unsigned 16-bit lanes and come out
/// exact once offset; SSE2 multiplies eight such lanes in one instruction. 256ths would not fit.
/// A code is ⌊(Σ + 64) / 128⌋ clamped to 0…255, the same in the vector and the scalar paths.
enum ShearKernels {
    /// Taps a pass reads: shift − 1 … shift + 2.
    static let taps = 4

    /// Weights at fractions i/256, as `BicubicSampler.table`, rounded to 128ths that sum to
    /// exactly 128 (the rounding's remainder goes to the largest), so a flat area stays flat
    /// and a whole-pixel position copies its pixel.
    static let table: [SIMD4<Int16>] = (0...(1 << BicubicSampler.fractionBits)).map {
        let w = BicubicSampler.weights(Float($0) / Float(1 << BicubicSampler.fractionBits)) * 128
        var q = SIMD4<Int16>(w, rounding: .toNearestOrEven)
        let largest = w.y >= w.z ? 1 : 2
        q[largest] += 128 - q.wrappedSum()
        return q
    }

    /// The whole-pixel shift and the weights for a pass at `position` (32.32): taps at
    /// shift − 1 … shift + 2, the fraction rounded to 1/256 as `BicubicSampler` rounds it.
    @inline(__always) static func tap(_ position: Int64) -> (shift: Int, weights: SIMD4<Int16>) {
        let fraction =
            UInt64(UInt32(truncatingIfNeeded: position)) &+ (1 << (31 - BicubicSampler.fractionBits))
        let index = Int(truncatingIfNeeded: fraction >> (32 - BicubicSampler.fractionBits))
        return (Int(truncatingIfNeeded: position >> 32), table[index])
    }

    @inline(__always) static func code(_ sum: Int32) -> UInt8 { UInt8(clamping: (sum &+ 64) >> 7) }

    /// Σ wₖ·aₖ for 16 codes, each lane its own weights (`low` for the first eight, `high` for
    /// the rest), as `code` rounds and clamps it. The 8192 offset keeps the wrapped sums
    /// unsigned: (Σ + 8256) >> 7 is ⌊(Σ + 64) / 128⌋ + 64.
    @inline(__always) static func filter(
        _ a: (SIMD16<UInt8>, SIMD16<UInt8>, SIMD16<UInt8>, SIMD16<UInt8>),
        low: (SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>),
        high: (SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>)
    ) -> SIMD16<UInt8> {
        func wide(_ v: SIMD8<UInt8>) -> SIMD8<UInt16> { SIMD8<UInt16>(truncatingIfNeeded: v) }
        let offset = SIMD8<UInt16>(repeating: 8192 + 64)
        var l = offset &+ wide(a.0.lowHalf) &* low.0
        l = l &+ wide(a.1.lowHalf) &* low.1
        l = l &+ wide(a.2.lowHalf) &* low.2
        l = l &+ wide(a.3.lowHalf) &* low.3
        var h = offset &+ wide(a.0.highHalf) &* high.0
        h = h &+ wide(a.1.highHalf) &* high.1
        h = h &+ wide(a.2.highHalf) &* high.2
        h = h &+ wide(a.3.highHalf) &* high.3
        let floor = SIMD8<Int16>(repeating: 64)
        let ceiling = SIMD8<Int16>(repeating: 64 + 255)
        let lc = SIMD8<Int16>(truncatingIfNeeded: l &>> 7).clamped(lowerBound: floor, upperBound: ceiling) &- floor
        let hc = SIMD8<Int16>(truncatingIfNeeded: h &>> 7).clamped(lowerBound: floor, upperBound: ceiling) &- floor
        return SIMD16(lowHalf: SIMD8(truncatingIfNeeded: lc), highHalf: SIMD8(truncatingIfNeeded: hc))
    }

    // MARK: Along a row (the first and third passes)

    /// Output pixels `columns` of a row: pixel X is Σₖ wₖ · source(X + shift + k − 1), the
    /// source's columns clamped to `available` (`source` points at its first); shift and
    /// weights from `position`. `target` points at the first output pixel.
    static func along(
        _ source: UnsafePointer<UInt8>, available: ClosedRange<Int>, position: Int64, columns: Range<Int>,
        into target: UnsafeMutablePointer<UInt8>
    ) {
        let (shift, w) = tap(position)
        let low = available.lowerBound
        let high = available.upperBound
        // Pixels whose four taps all lie inside, with no clamping.
        let innerLow = max(columns.lowerBound, low - shift + 1)
        let inner = innerLow..<max(min(columns.upperBound, high - shift - 1), innerLow)
        let bytes = inner.count * 3
        if bytes >= 16 {
            let lanes = (
                SIMD8<UInt16>(repeating: UInt16(bitPattern: w[0])), SIMD8<UInt16>(repeating: UInt16(bitPattern: w[1])),
                SIMD8<UInt16>(repeating: UInt16(bitPattern: w[2])), SIMD8<UInt16>(repeating: UInt16(bitPattern: w[3]))
            )
            let from = UnsafeRawPointer(source + (inner.lowerBound + shift - 1 - low) * 3)
            let to = UnsafeMutableRawPointer(target + (inner.lowerBound - columns.lowerBound) * 3)
            var offset = 0
            while true {
                // The last chunk ends at the last code, overlapping the one before: same codes.
                let at = min(offset, bytes - 16)
                let a = (
                    from.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self),
                    from.loadUnaligned(fromByteOffset: at + 3, as: SIMD16<UInt8>.self),
                    from.loadUnaligned(fromByteOffset: at + 6, as: SIMD16<UInt8>.self),
                    from.loadUnaligned(fromByteOffset: at + 9, as: SIMD16<UInt8>.self)
                )
                to.storeBytes(of: filter(a, low: lanes, high: lanes), toByteOffset: at, as: SIMD16<UInt8>.self)
                offset += 16
                if at == bytes - 16 { break }
            }
        }
        // The rest one code at a time, taps clamped.
        func clamped(_ range: Range<Int>) {
            for x in range {
                let first = x + shift - 1
                for channel in 0..<3 {
                    var sum: Int32 = 0
                    for k in 0..<taps {
                        let column = min(max(first + k, low), high) - low
                        sum += Int32(w[k]) * Int32(source[column * 3 + channel])
                    }
                    target[(x - columns.lowerBound) * 3 + channel] = code(sum)
                }
            }
        }
        if bytes < 16 {
            clamped(columns)
        } else {
            clamped(columns.lowerBound..<inner.lowerBound)
            clamped(inner.upperBound..<columns.upperBound)
        }
    }

    // MARK: Down a column (the second pass)

    /// I1 held skewed: column U of I1's row R sits in row R − shift(U), so the four rows a row
    /// of I2 reads are whole rows, read in order. Row S is in slot (S − `baseRow`) mod `slots`,
    /// `stride` bytes apart, each starting at column `firstColumn`.
    struct Skewed {
        var pixels: UnsafeMutablePointer<UInt8>
        var firstColumn: Int
        var stride: Int
        var baseRow: Int
        var slots: Int

        /// Row S, positioned so column U's codes are at (U · 3).
        @inline(__always) func row(_ s: Int) -> UnsafeMutablePointer<UInt8> {
            pixels + ((s - baseRow) % slots) * stride - firstColumn * 3
        }
    }

    /// Scatters I1's row `row` (`codes`, its columns `weights.columns`) into the skewed rows
    /// R − shift(U) that lie in `wanted`, run by run. (A first pass writing into the skewed
    /// rows itself measured slower: its stores miss the cache as this copy's do, but with the
    /// filter's work waiting on them.)
    static func scatter(
        _ codes: UnsafePointer<UInt8>, row: Int, weights: ColumnWeights, into skewed: Skewed,
        wanted: ClosedRange<Int>
    ) {
        let from = UnsafeRawPointer(codes - weights.columns.lowerBound * 3)
        for run in weights.runs {
            let s = row - run.shift
            guard wanted.contains(s) else { continue }
            let to = UnsafeMutableRawPointer(skewed.row(s))
            let start = run.first * 3
            let bytes = (run.last - run.first + 1) * 3
            guard bytes >= 16 else {
                (to + start).copyMemory(from: from + start, byteCount: bytes)
                continue
            }
            var offset = 0
            while true {
                let at = start + min(offset, bytes - 16)
                to.storeBytes(
                    of: from.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self), toByteOffset: at,
                    as: SIMD16<UInt8>.self)
                offset += 16
                if offset >= bytes { break }
            }
        }
    }

    /// Row y of I2 for `columns` into `target`: column U is Σₖ wₖ(U) · skewed(y + k − 1, U), that
    /// is I1(U, y + shift(U) + k − 1), with the weights `weights` hold for U: 16 codes at a
    /// time, each with its own column's weights.
    static func down(
        _ skewed: Skewed, row y: Int, columns: ClosedRange<Int>, weights: ColumnWeights,
        into target: UnsafeMutablePointer<UInt8>
    ) {
        let start = columns.lowerBound * 3
        let lines = (
            UnsafeRawPointer(skewed.row(y - 1) + start), UnsafeRawPointer(skewed.row(y) + start),
            UnsafeRawPointer(skewed.row(y + 1) + start), UnsafeRawPointer(skewed.row(y + 2) + start)
        )
        let planes = weights.planes(from: columns.lowerBound)
        let bytes = columns.count * 3
        let to = UnsafeMutableRawPointer(target)
        guard bytes >= 16 else {
            for index in 0..<bytes {
                let w = planes.weights(at: index)
                var sum = Int32(w[0]) * Int32(lines.0.load(fromByteOffset: index, as: UInt8.self))
                sum += Int32(w[1]) * Int32(lines.1.load(fromByteOffset: index, as: UInt8.self))
                sum += Int32(w[2]) * Int32(lines.2.load(fromByteOffset: index, as: UInt8.self))
                sum += Int32(w[3]) * Int32(lines.3.load(fromByteOffset: index, as: UInt8.self))
                to.storeBytes(of: code(sum), toByteOffset: index, as: UInt8.self)
            }
            return
        }
        var offset = 0
        while true {
            // The last chunk ends at the last code, overlapping the one before: same codes.
            let at = min(offset, bytes - 16)
            let a = (
                lines.0.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self),
                lines.1.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self),
                lines.2.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self),
                lines.3.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self)
            )
            to.storeBytes(
                of: filter(a, low: planes.lanes(at: at), high: planes.lanes(at: at + 8)), toByteOffset: at,
                as: SIMD16<UInt8>.self)
            offset += 16
            if at == bytes - 16 { break }
        }
    }
}

/// The second pass's weights for a range of I1's columns: each column's shift and its four
/// weights, the weights spread to the column's three codes in four planes (so 16 codes load
/// their weights with two plain loads a tap), and the runs of columns that share a shift
/// (which go to the same skewed row). Shifts only grow or only shrink along a row.
final class ColumnWeights {
    let columns: ClosedRange<Int>
    private(set) var runs: [(first: Int, last: Int, shift: Int)] = []

    /// The least and greatest shift.
    var shifts: ClosedRange<Int> { min(runs.first!.shift, runs.last!.shift)...max(runs.first!.shift, runs.last!.shift) }
    private let planes: UnsafeMutableBufferPointer<UInt16>
    private let plane: Int

    /// What it holds for `count` columns.
    static func bytes(columns count: Int) -> Int { count * 3 * ShearKernels.taps * 2 }

    init(_ turn: ShearedTurn, columns: ClosedRange<Int>) {
        self.columns = columns
        plane = columns.count * 3
        planes = .allocate(capacity: plane * 4)
        for column in columns {
            let (shift, w) = ShearKernels.tap(turn.secondPass(column: column))
            if let last = runs.last, last.shift == shift, last.last == column - 1 {
                runs[runs.count - 1].last = column
            } else {
                runs.append((column, column, shift))
            }
            let index = (column - columns.lowerBound) * 3
            for k in 0..<4 {
                let value = UInt16(bitPattern: w[k])
                for channel in 0..<3 { planes[k * plane + index + channel] = value }
            }
        }
    }

    deinit { planes.deallocate() }

    /// The planes from column `column`'s first code on.
    func planes(from column: Int) -> Planes {
        Planes(base: UnsafePointer(planes.baseAddress! + (column - columns.lowerBound) * 3), plane: plane)
    }

    struct Planes {
        let base: UnsafePointer<UInt16>
        let plane: Int

        @inline(__always) func lanes(at index: Int) -> (SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>) {
            let raw = UnsafeRawPointer(base + index)
            let step = plane * 2
            return (
                raw.loadUnaligned(as: SIMD8<UInt16>.self),
                raw.loadUnaligned(fromByteOffset: step, as: SIMD8<UInt16>.self),
                raw.loadUnaligned(fromByteOffset: 2 * step, as: SIMD8<UInt16>.self),
                raw.loadUnaligned(fromByteOffset: 3 * step, as: SIMD8<UInt16>.self)
            )
        }

        @inline(__always) func weights(at index: Int) -> SIMD4<Int16> {
            SIMD4(
                Int16(bitPattern: base[index]), Int16(bitPattern: base[index + plane]),
                Int16(bitPattern: base[index + 2 * plane]), Int16(bitPattern: base[index + 3 * plane]))
        }
    }
}
