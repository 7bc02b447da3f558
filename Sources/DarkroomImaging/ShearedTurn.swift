/// A turn by at most 45° as three shears (Paeth 1986): the rows slide sideways, then the
/// columns slide up or down, then the rows slide again. Each pass interpolates along one axis
/// only, with Catmull-Rom weights that stay the same all along a row (or a column), so it runs
/// as a 4-tap filter over 16 codes at a time (`ShearKernels`), in 16-bit lanes, where the 2D
/// sampler takes 16 taps of four floats a pixel. (Unser, Thévenaz and Yaroslavsky, IEEE TIP
/// 4(10), 1995, study such three-pass turns.)
///
/// For a turn's map s = (a·x + b·y + tx, c·x + d·y + ty) with a = d = cos θ and c = −b = sin θ
/// (see `PixelAffine`), with α = (cos θ − 1) / sin θ = −tan(θ/2) and β = sin θ:
///
///     output(x, y) = I2(x + α·y, y)
///     I2(U, V)     = I1(U, V + β·U + ty)
///     I1(U, R)     = input(U + α·R + tx − α·ty, R)
///
/// which composes to s exactly (the product of the shears is the rotation). U, V and R are
/// whole pixels; I1 has a row for each input row, so it is made as the input arrives.
struct ShearedTurn: Sendable, Equatable {
    /// Positions in 32.32 fixed point, as `BicubicSampler`'s: exact sums, so a pixel gets the
    /// same weights whichever block or strip makes it.
    let alpha: Int64
    let beta: Int64
    /// tx − α·ty: where the first pass's row 0 starts.
    let rowOffset: Int64
    /// ty: where the second pass's column 0 starts.
    let columnOffset: Int64

    /// The shears of `map`, when it is a turn by at most 45° (any crop folded in); nil for
    /// anything else (a mirror, a quarter turn and more), which the 2D sampler does.
    init?(map: PixelAffine) {
        let tolerance = 1e-9
        guard abs(map.a - map.d) < tolerance, abs(map.b + map.c) < tolerance, map.a > 0,
            abs(map.c) <= map.a + tolerance, abs(map.a * map.a + map.c * map.c - 1) < tolerance
        else { return nil }
        let alpha = map.c == 0 ? 0 : (map.a - 1) / map.c
        let fixed = { (value: Double) in Int64((value * BicubicSampler.unit).rounded()) }
        self.alpha = fixed(alpha)
        beta = fixed(map.c)
        rowOffset = fixed(map.tx - alpha * map.ty)
        columnOffset = fixed(map.ty)
    }

    /// Where input row R's pixels start for I1 (its column 0), 32.32.
    @inline(__always) func firstPass(row: Int) -> Int64 { alpha &* Int64(row) &+ rowOffset }
    /// Where I1's column U starts for I2 (its row 0), 32.32.
    @inline(__always) func secondPass(column: Int) -> Int64 { beta &* Int64(column) &+ columnOffset }
    /// Where I2's row y starts for the output (its column 0), 32.32.
    @inline(__always) func thirdPass(row: Int) -> Int64 { alpha &* Int64(row) }

    /// The whole pixels a pass reads for positions `low...high` pixels past these offsets:
    /// the taps of floor(position) − 1 … floor(position) + 2.
    private static func reach(_ low: Int, _ high: Int, offsets: Int64, _ other: Int64) -> ClosedRange<Int> {
        let first = Int(truncatingIfNeeded: min(offsets, other) >> 32)
        let last = Int(truncatingIfNeeded: max(offsets, other) >> 32)
        return (low + first - 1)...(high + last + 2)
    }

    /// I2's (and so I1's) columns the output rectangle reads.
    func columns(for output: PixelRect) -> ClosedRange<Int> {
        Self.reach(
            output.x, output.maxX - 1, offsets: thirdPass(row: output.y), thirdPass(row: output.maxY - 1))
    }

    /// I1's rows (input rows) the output rectangle reads, before clamping to the image.
    func rows(for output: PixelRect) -> ClosedRange<Int> {
        let columns = columns(for: output)
        return Self.reach(
            output.y, output.maxY - 1, offsets: secondPass(column: columns.lowerBound),
            secondPass(column: columns.upperBound))
    }

    /// Input columns the first pass reads to make I1's `columns` on input rows `rows`.
    func inputColumns(rows: ClosedRange<Int>, columns: ClosedRange<Int>) -> ClosedRange<Int> {
        Self.reach(
            columns.lowerBound, columns.upperBound, offsets: firstPass(row: rows.lowerBound),
            firstPass(row: rows.upperBound))
    }
}
