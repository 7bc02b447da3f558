/// An ISO 8601 date and time as XMP writes it, and as some writers put it in EXIF's date tags:
/// `2021-07-04T10:15:30`, with an optional fraction (`.25`) and offset (`Z`, `+02:00`, `+0200`,
/// `+02`). Seconds may be left out (`2021-07-04T10:15`, XMP allows it); a space may stand for
/// the `T`. A date without a time is not a capture time and is refused. Pure, no Foundation
/// calendar: the calendar checks are `WallClock`'s.
struct ISODateTime {
    var wallClock: WallClock
    /// Seconds east of UTC, when the string says; nil leaves the zone to the caller.
    var offsetSeconds: Int?
    /// The fraction of a second, 0 ≤ fraction < 1.
    var fraction: Double

    /// At most this many bytes are looked at: a longer string is no date.
    static let maxLength = 40

    init?(_ value: Substring) {
        let bytes = Array(value.utf8.prefix(Self.maxLength + 1))
        guard bytes.count <= Self.maxLength, bytes.count >= 16,
            bytes[4] == .hyphen, bytes[7] == .hyphen, bytes[10] == .letterT || bytes[10] == .space,
            bytes[13] == .colon,
            let year = ExifDateTime.decimal(bytes[0...3]), let month = ExifDateTime.decimal(bytes[5...6]),
            let day = ExifDateTime.decimal(bytes[8...9]), let hour = ExifDateTime.decimal(bytes[11...12]),
            let minute = ExifDateTime.decimal(bytes[14...15])
        else { return nil }
        var index = 16
        var second = 0
        if index < bytes.count, bytes[index] == .colon {
            guard index + 3 <= bytes.count, let parsed = ExifDateTime.decimal(bytes[(index + 1)...(index + 2)]) else {
                return nil
            }
            second = parsed
            index += 3
        }
        fraction = 0
        if index < bytes.count, bytes[index] == .period {
            let digits = bytes[(index + 1)...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            guard !digits.isEmpty, digits.count <= 9, let value = ExifDateTime.decimal(digits[...]) else { return nil }
            fraction = Double(value) / Double((0..<digits.count).reduce(1) { result, _ in result * 10 })
            index += 1 + digits.count
        }
        guard let zone = Self.zone(bytes[index...]),
            let wallClock = WallClock(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        self.wallClock = wallClock
        if case .seconds(let seconds) = zone { offsetSeconds = seconds } else { offsetSeconds = nil }
    }

    private enum Zone {
        case unstated
        case seconds(Int)
    }

    /// The zone designator: none, `Z`, `±HH:MM`, `±HHMM` or `±HH`, within ±14 h; nil when malformed.
    private static func zone(_ bytes: ArraySlice<UInt8>) -> Zone? {
        let zone = Array(bytes)
        if zone.isEmpty { return .unstated }
        if zone == [.letterZ] { return .seconds(0) }
        guard let sign = zone.first, sign == .plus || sign == .minus, zone.count >= 3,
            let hours = ExifDateTime.decimal(zone[1...2])
        else { return nil }
        let minutes: Int?
        switch zone.count {
        case 3: minutes = 0
        case 5: minutes = ExifDateTime.decimal(zone[3...4])
        case 6 where zone[3] == .colon: minutes = ExifDateTime.decimal(zone[4...5])
        default: minutes = nil
        }
        guard let minutes, hours <= 14, minutes <= 59 else { return nil }
        let magnitude = hours * 3600 + minutes * 60
        return .seconds(sign == .plus ? magnitude : -magnitude)
    }
}

extension UInt8 {
    fileprivate static let hyphen = UInt8(ascii: "-")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let period = UInt8(ascii: ".")
    fileprivate static let plus = UInt8(ascii: "+")
    fileprivate static let minus = UInt8(ascii: "-")
    fileprivate static let letterT = UInt8(ascii: "T")
    fileprivate static let letterZ = UInt8(ascii: "Z")
}
