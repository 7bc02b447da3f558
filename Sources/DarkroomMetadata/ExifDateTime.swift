#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Parses EXIF date/time strings. Pure: no I/O, no calendar or locale lookups.
public enum ExifDateTime {
    /// Parses `"YYYY:MM:DD HH:MM:SS"` (DateTimeOriginal and friends) into an instant.
    ///
    /// EXIF stores wall-clock time without a zone. `offset` is the matching OffsetTime* tag
    /// (`"+02:00"`, `"-05:30"`, `"Z"`); when it is `nil` or blank (`"   :  "`, meaning unknown)
    /// the wall-clock time is read as UTC, because nothing in the file says otherwise.
    ///
    /// Trailing NULs and spaces are tolerated. Returns `nil` for blanks, the all-zero
    /// "unknown" date, impossible calendar values (2023:02:30, 24:00:00), or a non-blank
    /// offset that is malformed.
    ///
    /// Some writers put an ISO 8601 string where EXIF wants its own (`2021-07-04T10:15:30`,
    /// `ISODateTime`): it is read too, its own offset winning over `offset`, and so is its
    /// fraction of a second.
    public static func parse(_ value: String, offset: String?) -> Date? {
        let iso = ISODateTime(value.trimmingTrailing(where: isPadding))
        guard let wallClock = iso?.wallClock ?? WallClock(value) else { return nil }
        let offsetSeconds: Int
        if let own = iso?.offsetSeconds {
            offsetSeconds = own
        } else if let offset, !isBlank(offset) {
            guard let parsed = utcOffsetSeconds(offset) else { return nil }
            offsetSeconds = parsed
        } else {
            offsetSeconds = 0
        }
        return Date(
            timeIntervalSince1970: TimeInterval(wallClock.secondsSinceEpochAsUTC - offsetSeconds) + (iso?.fraction ?? 0)
        )
    }

    /// `"+HH:MM"`, `"-HH:MM"` or `"Z"` to seconds east of UTC. Real zones lie within ±14 h.
    static func utcOffsetSeconds(_ offset: String) -> Int? {
        let bytes = Array(offset.trimmingTrailing(where: isPadding).utf8)
        if bytes == [UInt8(ascii: "Z")] { return 0 }
        guard bytes.count == 6, bytes[3] == UInt8(ascii: ":"),
            let hours = decimal(bytes[1...2]), let minutes = decimal(bytes[4...5]),
            hours <= 14, minutes <= 59
        else { return nil }
        let magnitude = hours * 3600 + minutes * 60
        switch bytes[0] {
        case UInt8(ascii: "+"): return magnitude
        case UInt8(ascii: "-"): return -magnitude
        default: return nil
        }
    }

    /// Blank fields are how EXIF says "unknown": spaces with the separators left in.
    private static func isBlank(_ value: String) -> Bool {
        value.allSatisfy { $0 == " " || $0 == ":" || $0 == "\0" }
    }

    static func isPadding(_ character: Character) -> Bool {
        character == "\0" || character == " "
    }

    /// The unsigned decimal number spelled by `digits`, or `nil` if any byte is not a digit.
    static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}

/// A validated proleptic-Gregorian date and time of day, zone unknown.
struct WallClock {
    var year, month, day, hour, minute, second: Int

    init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        guard year >= 1, (1...12).contains(month),
            (1...WallClock.daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second) = (hour, minute, second)
    }

    init?(_ value: String) {
        let bytes = Array(value.trimmingTrailing(where: ExifDateTime.isPadding).utf8)
        // "YYYY:MM:DD HH:MM:SS": separators at fixed positions, digits everywhere else.
        let separators: [Int: UInt8] = [4: .colon, 7: .colon, 10: .space, 13: .colon, 16: .colon]
        guard bytes.count == 19, separators.allSatisfy({ bytes[$0.key] == $0.value }),
            let year = ExifDateTime.decimal(bytes[0...3]),
            let month = ExifDateTime.decimal(bytes[5...6]),
            let day = ExifDateTime.decimal(bytes[8...9]),
            let hour = ExifDateTime.decimal(bytes[11...12]),
            let minute = ExifDateTime.decimal(bytes[14...15]),
            let second = ExifDateTime.decimal(bytes[17...18])
        else { return nil }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    var secondsSinceEpochAsUTC: Int {
        WallClock.daysSinceEpoch(year: year, month: month, day: day) * 86_400
            + hour * 3600 + minute * 60 + second
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Days from 1970-01-01 to the given civil date (Howard Hinnant's `days_from_civil`),
    /// so parsing does not depend on Calendar, time zones or locale.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension UInt8 {
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let space = UInt8(ascii: " ")
}
