/// A `numeric` in its binary form: base-10000 digits with a weight. Views and functions return
/// numeric more often than one would think (`extract`, `round`, `sum(bigint)`, `avg`), so LibPQ
/// reads it rather than making every query cast.
struct PostgresNumeric {
    enum Sign { case positive, negative, nan, infinity, negativeInfinity }

    let sign: Sign
    /// Power of 10000 of the first digit: the value is Σ digits[i] · 10000^(weight − i).
    let weight: Int
    /// Decimal digits after the point that the value shows, as in PostgreSQL's own text output.
    let displayScale: Int
    let digits: [Int16]

    /// Reads numeric_send's layout: ndigits, weight, sign, dscale (int16 each), then the digits.
    init(_ bytes: ArraySlice<UInt8>) throws(PostgresDecodingError.Reason) {
        let fields = Array(bytes)
        guard fields.count >= 8 else { throw .malformed("numeric needs an 8-byte header, got \(fields.count) bytes") }
        func int16(_ index: Int) -> Int16 { Int16(bitPattern: UInt16(fields[index]) << 8 | UInt16(fields[index + 1])) }
        let count = Int(int16(0))
        guard count >= 0, fields.count == 8 + 2 * count else {
            throw .malformed("numeric says \(count) digits but has \(fields.count - 8) bytes of them")
        }
        switch UInt16(bitPattern: int16(4)) {
        case 0x0000: sign = .positive
        case 0x4000: sign = .negative
        case 0xC000: sign = .nan
        case 0xD000: sign = .infinity
        case 0xF000: sign = .negativeInfinity
        case let other: throw .malformed("numeric sign 0x\(String(other, radix: 16)) is not one PostgreSQL sends")
        }
        weight = Int(int16(2))
        displayScale = Int(int16(6))
        guard (0...0x3FFF).contains(displayScale) else { throw .malformed("numeric display scale \(displayScale)") }
        digits = (0..<count).map { int16(8 + 2 * $0) }
        guard digits.allSatisfy({ (0...9999).contains($0) }) else { throw .malformed("numeric digit outside 0...9999") }
    }

    /// The base-10000 digit worth 10000^power, 0 where none is stored.
    private func digit(power: Int) -> Int16 {
        let index = weight - power
        return digits.indices.contains(index) ? digits[index] : 0
    }

    /// The integer part's decimal digits, without sign ("0" when there are none).
    private var integerDigits: String {
        guard weight >= 0 else { return "0" }
        var text = String(digit(power: weight))
        for power in stride(from: weight - 1, through: 0, by: -1) {
            text += padded(digit(power: power))
        }
        return text
    }

    /// The first `count` decimal digits after the point.
    private func fractionDigits(_ count: Int) -> String {
        guard count > 0 else { return "" }
        var text = ""
        var power = -1
        while text.count < count {
            text += padded(digit(power: power))
            power -= 1
        }
        return String(text.prefix(count))
    }

    private func padded(_ group: Int16) -> String {
        let digits = String(group)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// The same text PostgreSQL prints for the value, e.g. "-12.50", "NaN", "Infinity".
    var text: String {
        switch sign {
        case .nan: return "NaN"
        case .infinity: return "Infinity"
        case .negativeInfinity: return "-Infinity"
        case .positive, .negative:
            let magnitude = integerDigits + (displayScale > 0 ? "." + fractionDigits(displayScale) : "")
            let isZero = digits.allSatisfy { $0 == 0 }
            return sign == .negative && !isZero ? "-" + magnitude : magnitude
        }
    }

    /// The value rounded to the nearest Double (Swift's parser rounds decimal text correctly).
    var double: Double {
        switch sign {
        case .nan: return .nan
        case .infinity: return .infinity
        case .negativeInfinity: return -.infinity
        case .positive, .negative: return Double(text) ?? .nan
        }
    }

    /// The value when it is a whole number that fits, whatever its display scale (`42.00` is 42).
    var int64: Int64? {
        guard sign == .positive || sign == .negative else { return nil }
        // Only stored digits can be non-zero, so a whole number has none past the point.
        guard digits.indices.allSatisfy({ weight - $0 >= 0 || digits[$0] == 0 }) else { return nil }
        return Int64((sign == .negative ? "-" : "") + integerDigits)
    }
}
