import Foundation

/// Text conversion for `timestamptz`, done by hand: the formats are fixed (the connection sets
/// `DateStyle=ISO` and `TimeZone=UTC`), and hand-written civil-date arithmetic avoids sharing
/// `DateFormatter`s between threads.
enum PostgresTimestamp {
    private static let microsecondsPerDay: Int64 = 86_400_000_000

    /// `2008-10-22 16:28:39.123456+00`, always UTC, years before 1 written with ` BC`.
    static func format(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let days = micros.floorDivided(by: microsecondsPerDay)
        var rest = micros - days * microsecondsPerDay
        let (year, month, day) = civil(fromDays: days)
        let hour = rest / 3_600_000_000; rest %= 3_600_000_000
        let minute = rest / 60_000_000; rest %= 60_000_000
        let second = rest / 1_000_000
        let fraction = rest % 1_000_000
        let era = year <= 0 ? " BC" : ""
        return "\(pad(year <= 0 ? 1 - year : year, 4))-\(pad(month, 2))-\(pad(day, 2)) "
            + "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(fraction, 6))+00\(era)"
    }

    /// Reads what PostgreSQL prints for `timestamptz`, `timestamp` (taken as UTC) and `date`
    /// under `DateStyle=ISO`, plus the `T`/`Z` spelling found in JSON.
    static func parse(_ text: String) -> Date? {
        switch text {
        case "infinity": return .distantFuture
        case "-infinity": return .distantPast
        default: break
        }
        var scanner = DigitScanner(Array(text.utf8))
        let isBC = scanner.removeSuffix(" BC")
        guard var year = scanner.number(minDigits: 4), scanner.skip("-"),
              let month = scanner.number(digits: 2), (1...12).contains(month), scanner.skip("-"),
              let day = scanner.number(digits: 2), (1...31).contains(day)
        else { return nil }
        if isBC { year = 1 - year }
        var micros = days(fromCivil: year, month, day) * microsecondsPerDay
        if scanner.isAtEnd { return date(micros) }

        guard scanner.skip(" ") || scanner.skip("T"),
              let hour = scanner.number(digits: 2), hour <= 24, scanner.skip(":"),
              let minute = scanner.number(digits: 2), minute < 60, scanner.skip(":"),
              let second = scanner.number(digits: 2), second < 61
        else { return nil }
        micros += ((hour * 60 + minute) * 60 + second) * 1_000_000
        if scanner.skip(".") {
            guard var (fraction, digits) = scanner.fraction(maxDigits: 9) else { return nil }
            // Scale to microseconds; digits past the sixth are truncated, as PostgreSQL never sends them.
            while digits < 6 { fraction *= 10; digits += 1 }
            while digits > 6 { fraction /= 10; digits -= 1 }
            micros += fraction
        }
        if scanner.isAtEnd || scanner.skip("Z") {
            return scanner.isAtEnd ? date(micros) : nil
        }
        // The offset says how far local time is ahead of UTC: +05:30 means subtract.
        let sign: Int64
        if scanner.skip("+") { sign = 1 } else if scanner.skip("-") { sign = -1 } else { return nil }
        guard let offsetHours = scanner.number(digits: 2) else { return nil }
        var offsetSeconds = offsetHours * 3600
        if scanner.skip(":") {
            guard let offsetMinutes = scanner.number(digits: 2) else { return nil }
            offsetSeconds += offsetMinutes * 60
            if scanner.skip(":") {
                guard let extraSeconds = scanner.number(digits: 2) else { return nil }
                offsetSeconds += extraSeconds
            }
        }
        guard scanner.isAtEnd else { return nil }
        return date(micros - sign * offsetSeconds * 1_000_000)
    }

    private static func date(_ microsSinceEpoch: Int64) -> Date {
        // Split before converting so large values keep their microseconds.
        let seconds = microsSinceEpoch.floorDivided(by: 1_000_000)
        let fraction = microsSinceEpoch - seconds * 1_000_000
        return Date(timeIntervalSince1970: Double(seconds) + Double(fraction) / 1_000_000)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    // Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian, year 0 = 1 BC).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDivided(by: 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

private extension Int64 {
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

/// Reads ASCII digits and punctuation from the front of a byte string.
private struct DigitScanner {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    var isAtEnd: Bool { bytes.isEmpty }

    mutating func skip(_ literal: String) -> Bool {
        guard bytes.starts(with: literal.utf8) else { return false }
        bytes.removeFirst(literal.utf8.count)
        return true
    }

    mutating func removeSuffix(_ literal: String) -> Bool {
        guard bytes.reversed().starts(with: literal.utf8.reversed()) else { return false }
        bytes.removeLast(literal.utf8.count)
        return true
    }

    mutating func number(digits: Int) -> Int64? {
        number(minDigits: digits, maxDigits: digits)
    }

    mutating func number(minDigits: Int, maxDigits: Int = 18) -> Int64? {
        guard let (value, count) = fraction(maxDigits: maxDigits), count >= minDigits else { return nil }
        return value
    }

    /// Consecutive digits as a number and how many there were.
    mutating func fraction(maxDigits: Int = 18) -> (Int64, Int)? {
        var value: Int64 = 0
        var count = 0
        while let byte = bytes.first, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), count < maxDigits {
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            count += 1
            bytes.removeFirst()
        }
        return count == 0 ? nil : (value, count)
    }
}
