/// sRGB ↔ linear light. Operations run on linear floats (as Core Image's default working
/// space does); both directions are table lookups so the hot loops do no `pow`.
public enum SRGB {
    /// Linear value of each 8-bit sRGB code.
    public static let decodeTable: [Float] = (0..<256).map { code in
        Float(toLinear(Double(code) / 255))
    }

    /// Entries in the encode table: linear values are quantised to 1/65535 before lookup.
    /// That is fine enough that every 8-bit code survives decode → encode unchanged (the
    /// darkest codes are 20 steps apart).
    public static let encodeSteps = 65_535

    /// 8-bit sRGB code for each quantised linear value, rounded to nearest.
    public static let encodeTable: [UInt8] = (0...encodeSteps).map { index in
        let encoded = fromLinear(Double(index) / Double(encodeSteps)) * 255
        return UInt8(min(255, max(0, encoded.rounded())))
    }

    /// The IEC 61966-2-1 transfer functions in double precision.
    public static func toLinear(_ value: Double) -> Double {
        value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }

    public static func fromLinear(_ value: Double) -> Double {
        value <= 0.0031308 ? value * 12.92 : 1.055 * pow(value, 1 / 2.4) - 0.055
    }

    /// 8-bit codes → linear floats through `decodeTable` (256 entries).
    @inline(never)
    public static func decode(_ codes: UnsafePointer<UInt8>, into linear: UnsafeMutablePointer<Float>, count: Int,
                              table: UnsafePointer<Float>) {
        for index in 0..<count {
            linear[index] = table[Int(codes[index])]
        }
    }

    /// Linear floats → 8-bit codes: clamp (NaN → 0), scale to the table, round, look up.
    /// Rounding adds 2²³, which leaves round-to-nearest(x) in the low mantissa bits: no
    /// float-to-int conversion and so no range-check branch in the loop.
    @inline(never)
    public static func encode(_ linear: UnsafePointer<Float>, into codes: UnsafeMutablePointer<UInt8>, count: Int,
                              table: UnsafePointer<UInt8>) {
        let scale = Float(encodeSteps)
        for index in 0..<count {
            var value = linear[index]
            value = value > 0 ? value : 0
            value = value < 1 ? value : 1
            let rounded = (value * scale + 8_388_608).bitPattern & 0x7F_FFFF
            codes[index] = table[Int(rounded)]
        }
    }

    /// Linear float → 8-bit code; clamps to [0, 1] and maps NaN to 0. Rounds exactly as
    /// the row encoder does.
    @inline(__always)
    public static func encode(_ linear: Float, table: UnsafeBufferPointer<UInt8>) -> UInt8 {
        var value = linear > 0 ? linear : 0
        value = value < 1 ? value : 1
        return table[Int((value * Float(encodeSteps) + 8_388_608).bitPattern & 0x7F_FFFF)]
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
