import Foundation

/// `Date` ↔ the binary `timestamptz`/`timestamp` (Int64 microseconds since 2000-01-01 UTC) and
/// `date` (Int32 days since then). Integers on the wire, so neither DateStyle nor TimeZone matter.
///
/// Exactness: a Date holds a Double of seconds since 2001-01-01. Within about 272 years of that
/// (2^33 s; 1729–2273) a Double resolves well below a microsecond, so every server timestamp
/// there comes back to the server unchanged. Farther out a Double is coarser than a microsecond:
/// a timestamp decodes to the nearest Date, and a Date still encodes to a timestamp that decodes
/// back to the very same Date.
enum PostgresTimestamp {
    /// PostgreSQL's epoch, 2000-01-01, is 366 days (2000 is a leap year) before Foundation's.
    private static let epochOffsetMicroseconds: Int64 = 366 * 86_400 * 1_000_000
    static let microsecondsPerDay: Int64 = 86_400_000_000
    /// Integers below this magnitude are exact Doubles, so one division rounds them correctly.
    private static let exactDoubleLimit: Int64 = 1 << 53

    /// `infinity` and `-infinity` (DT_NOEND, DT_NOBEGIN), read as `Date.distantFuture`/`distantPast`.
    static let infinity = Int64.max
    static let negativeInfinity = Int64.min
    static let dateInfinity = Int32.max
    static let dateNegativeInfinity = Int32.min

    static func date(microseconds: Int64) -> Date {
        switch microseconds {
        case infinity: return .distantFuture
        case negativeInfinity: return .distantPast
        default: break
        }
        let (sinceReference, overflow) = microseconds.subtractingReportingOverflow(epochOffsetMicroseconds)
        if !overflow, sinceReference.magnitude < exactDoubleLimit {
            return Date(timeIntervalSinceReferenceDate: Double(sinceReference) / 1_000_000)
        }
        // Beyond 2^53 µs (285 years) a Double cannot carry microseconds anyway: split to avoid overflow.
        let seconds = microseconds.floorDivided(by: 1_000_000)
        let fraction = microseconds - seconds * 1_000_000
        return Date(timeIntervalSinceReferenceDate: Double(seconds - 366 * 86_400) + Double(fraction) / 1_000_000)
    }

    static func date(days: Int32) -> Date {
        switch days {
        case dateInfinity: return .distantFuture
        case dateNegativeInfinity: return .distantPast
        default: return date(microseconds: Int64(days) * microsecondsPerDay)
        }
    }

    /// The nearest microsecond; `distantFuture`/`distantPast` and ±∞ become `±infinity`, the
    /// inverse of decoding. `nil` for NaN and for instants no Int64 of microseconds can hold.
    static func microseconds(_ date: Date) -> Int64? {
        let interval = date.timeIntervalSinceReferenceDate
        if date == .distantFuture || interval == .infinity { return infinity }
        if date == .distantPast || interval == -.infinity { return negativeInfinity }
        // 1e13 s is past both ends of PostgreSQL's range and of Int64 microseconds; the checks
        // below catch the rest, and the server rejects what lies beyond its own range.
        guard interval.isFinite, interval.magnitude < 1e13 else { return nil }
        // Whole seconds and the fraction separately: `interval * 1e6` would round a second time.
        let seconds = interval.rounded(.down)
        let fraction = Int64(((interval - seconds) * 1_000_000).rounded())
        let (whole, wholeOverflows) = Int64(seconds).multipliedReportingOverflow(by: 1_000_000)
        let (micros, sumOverflows) = whole.addingReportingOverflow(fraction + epochOffsetMicroseconds)
        guard !wholeOverflows, !sumOverflows, micros != infinity, micros != negativeInfinity else { return nil }
        return micros
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
