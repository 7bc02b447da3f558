#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// sRGB ↔ linear light. Operations run on linear floats (as Core Image's default working
/// space does); both directions are table lookups so the hot loops do no `pow`.
public enum SRGB {
    /// Linear value of each 8-bit sRGB code.
    public static let decodeTable: [Float] = (0..<256).map { code in
        Float(toLinear(Double(code) / 255))
    }

    /// Linear → 8-bit, correctly rounded; small enough to stay in L1 (see `SRGBEncoder`).
    public static let encoder = SRGBEncoder()

    /// The IEC 61966-2-1 transfer functions in double precision.
    public static func toLinear(_ value: Double) -> Double {
        value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }

    public static func fromLinear(_ value: Double) -> Double {
        value <= 0.0031308 ? value * 12.92 : 1.055 * pow(value, 1 / 2.4) - 0.055
    }

    /// 8-bit codes → linear floats through `decodeTable` (256 entries).
    @inline(never)
    public static func decode(
        _ codes: UnsafePointer<UInt8>, into linear: UnsafeMutablePointer<Float>, count: Int,
        table: UnsafePointer<Float>
    ) {
        var index = 0
        // Eight codes in one load, picked apart in registers: the table lookups are then
        // the only loads per sample.
        while index &+ 8 <= count {
            let eight = UnsafeRawPointer(codes + index).loadUnaligned(as: UInt64.self)
            for lane in 0..<8 {
                linear[index &+ lane] = table[Int(truncatingIfNeeded: eight &>> UInt64(lane &* 8)) & 0xFF]
            }
            index &+= 8
        }
        while index < count {
            linear[index] = table[Int(codes[index])]
            index &+= 1
        }
    }

    /// The same through `decodeTable`.
    public static func decode(_ codes: UnsafePointer<UInt8>, into linear: UnsafeMutablePointer<Float>, count: Int) {
        decodeTable.withUnsafeBufferPointer { decode(codes, into: linear, count: count, table: $0.baseAddress!) }
    }

    /// Linear floats → 8-bit codes (clamped to [0, 1], NaN → 0), rounded as `SRGBEncoder` says.
    @inline(never)
    public static func encode(_ linear: UnsafePointer<Float>, into codes: UnsafeMutablePointer<UInt8>, count: Int) {
        let encoder = encoder
        var index = 0
        // Eight at a time: clamp, cell and comparison in SIMD; only the lookup is per lane.
        while index &+ 8 <= count {
            let bits = encoder.clampedBits(UnsafeRawPointer(linear + index).loadUnaligned(as: SIMD8<Float>.self))
            let cells = (bits &- SRGBEncoder.floorBits) &>> SRGBEncoder.shift
            var entries = SIMD8<UInt32>()
            for lane in 0..<8 {
                entries[lane] = encoder.cells[Int(truncatingIfNeeded: cells[lane])]
            }
            let above = SIMD8<UInt32>(repeating: 0).replacing(with: 1, where: encoder.reachesBound(bits, entries))
            let result = (entries &>> 24) &+ above
            UnsafeMutableRawPointer(codes + index).storeBytes(
                of: SIMD8<UInt8>(truncatingIfNeeded: result), as: SIMD8<UInt8>.self)
            index &+= 8
        }
        while index < count {
            codes[index] = encoder.code(linear[index])
            index &+= 1
        }
    }

    /// Linear float → 8-bit code, exactly as the row encoder rounds.
    public static func encode(_ linear: Float) -> UInt8 { encoder.code(linear) }
}

/// Linear float → `round(255 · fromLinear(x))`, exactly, with one lookup in a 13 KB table.
///
/// Code `k` starts at the threshold `T[k] = toLinear((k − ½)/255)`. The float's exponent and
/// top 8 mantissa bits pick a cell; cells are narrower than the gap between neighbouring
/// thresholds (checked when the table is built), so a cell holds at most one threshold. Its
/// entry is the cell's first code (top byte) and where in the cell the next code starts (the
/// low 15 bits of that threshold's bit pattern, or 2¹⁵ if it lies beyond the cell): for
/// non-negative floats, comparing bit patterns is comparing values, so the low bits decide.
/// The table stays in L1 beside the pixels, where a 65 536-entry table indexed by
/// `x · 65535` would not, and the rounding is exact rather than that of `x` quantised to
/// 1/65535.
public struct SRGBEncoder: @unchecked Sendable {  // immutable after init; never freed
    /// Below 2⁻¹³ every value rounds to code 0 (`T[1]` ≈ 1.5·10⁻⁴), so cells start there.
    static let floor: Float = 0x1p-13
    static let floorBits = floor.bitPattern
    static let shift: UInt32 = 23 - 8
    static let lowMask: UInt32 = 1 << shift - 1
    /// Cells from 2⁻¹³ up to and including 1.0 (the first cell of exponent 0).
    static let cellCount = Int((Float(1).bitPattern - floorBits) >> shift) + 1

    let cells: UnsafeMutablePointer<UInt32>

    init() {
        // `T[k]` as the smallest float ≥ the exact threshold, so that `x ≥ T[k]` is exact
        // for a float `x`; `T[256] = +∞`.
        var thresholds = [UInt32](repeating: Float.infinity.bitPattern, count: 257)
        for code in 1...255 {
            let exact = SRGB.toLinear((Double(code) - 0.5) / 255)
            var threshold = Float(exact)
            if Double(threshold) < exact { threshold = threshold.nextUp }
            thresholds[code] = threshold.bitPattern
        }
        thresholds[0] = 0
        cells = .allocate(capacity: Self.cellCount)
        var code = 0
        for cell in 0..<Self.cellCount {
            let first = Self.floorBits + UInt32(cell) << Self.shift
            let last = first + Self.lowMask
            while thresholds[code + 1] <= first { code += 1 }
            precondition(code == 255 || thresholds[code + 2] > last, "an sRGB encode cell holds two thresholds")
            let bound = thresholds[code + 1] <= last ? thresholds[code + 1] & Self.lowMask : Self.lowMask + 1
            cells[cell] = UInt32(code) << 24 | bound
        }
    }

    /// Bytes the table takes (for the memory estimate).
    static var bytes: Int { cellCount * 4 }

    /// Bit patterns of the values clamped to [2⁻¹³, 1]; NaN fails `>` and goes to the floor.
    @inline(__always)
    func clampedBits(_ linear: SIMD8<Float>) -> SIMD8<UInt32> {
        let raised = SIMD8(repeating: Self.floor).replacing(with: linear, where: linear .> Self.floor)
        let clamped = SIMD8(repeating: 1).replacing(with: raised, where: raised .< 1)
        return unsafeBitCast(clamped, to: SIMD8<UInt32>.self)
    }

    /// Whether each value has reached the next code's threshold within its cell (both sides
    /// are below 2¹⁶, so the signed comparison SSE2 has will do).
    @inline(__always)
    func reachesBound(_ bits: SIMD8<UInt32>, _ entries: SIMD8<UInt32>) -> SIMDMask<SIMD8<Int32>> {
        let low = SIMD8<Int32>(truncatingIfNeeded: bits & Self.lowMask)
        let bound = SIMD8<Int32>(truncatingIfNeeded: entries & 0xFFFF)
        return low .>= bound
    }

    @inline(__always)
    func code(_ linear: Float) -> UInt8 {
        var value = linear > Self.floor ? linear : Self.floor
        value = value < 1 ? value : 1
        let bits = value.bitPattern
        let entry = cells[Int(truncatingIfNeeded: (bits &- Self.floorBits) &>> Self.shift)]
        return UInt8(truncatingIfNeeded: entry &>> 24) &+ (bits & Self.lowMask >= entry & 0xFFFF ? 1 : 0)
    }
}
