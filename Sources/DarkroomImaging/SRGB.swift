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

    /// Linear float → 8-bit code; clamps to [0, 1] and maps NaN to 0.
    @inline(__always)
    public static func encode(_ linear: Float, table: UnsafeBufferPointer<UInt8>) -> UInt8 {
        var value = linear
        if !(value > 0) { value = 0 }
        if value > 1 { value = 1 }
        return table[Int(value * Float(encodeSteps) + 0.5)]
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
