import LibExif

/// Converts EXIF GPS fields to signed decimal values. Pure: no I/O, no libexif.
public enum GPSCoordinate {
    /// Degrees/minutes/seconds plus a hemisphere letter to signed decimal degrees.
    ///
    /// `reference` is GPSLatitudeRef or GPSLongitudeRef: "N"/"S" mark a latitude (at most 90°),
    /// "E"/"W" a longitude (at most 180°); "S" and "W" make the result negative. Trailing NULs
    /// and spaces are ignored, as writers pad these one-character fields inconsistently.
    ///
    /// Returns `nil` for anything that does not describe a real place: a zero denominator,
    /// minutes or seconds outside 0..<60, a magnitude beyond the axis' range, an unknown reference.
    public static func decimalDegrees(
        degrees: ExifRational,
        minutes: ExifRational,
        seconds: ExifRational,
        reference: String
    ) -> Double? {
        guard let hemisphere = Hemisphere(reference),
            let degrees = degrees.doubleValue,
            let minutes = minutes.doubleValue,
            let seconds = seconds.doubleValue,
            (0..<60).contains(minutes),
            (0..<60).contains(seconds)
        else { return nil }

        let magnitude = degrees + minutes / 60 + seconds / 3600
        guard magnitude <= hemisphere.maximumDegrees else { return nil }
        return hemisphere.isNegative ? -magnitude : magnitude
    }

    /// GPSAltitude plus GPSAltitudeRef to signed metres: reference 1 means below sea level.
    /// A missing reference means above sea level (the EXIF default). `nil` for a zero
    /// denominator or a reference other than 0 or 1.
    public static func altitudeMetres(altitude: ExifRational, reference: UInt32?) -> Double? {
        guard let metres = altitude.doubleValue else { return nil }
        switch reference {
        case nil, 0: return metres
        case 1: return -metres
        default: return nil
        }
    }
}

private enum Hemisphere {
    case north, south, east, west

    init?(_ reference: String) {
        switch reference.trimmingTrailing(where: { $0 == "\0" || $0 == " " }).uppercased() {
        case "N": self = .north
        case "S": self = .south
        case "E": self = .east
        case "W": self = .west
        default: return nil
        }
    }

    var maximumDegrees: Double {
        switch self {
        case .north, .south: 90
        case .east, .west: 180
        }
    }

    var isNegative: Bool { self == .south || self == .west }
}

extension String {
    /// `self` without the trailing characters matching `predicate`.
    func trimmingTrailing(where predicate: (Character) -> Bool) -> Substring {
        var trimmed = self[...]
        while let last = trimmed.last, predicate(last) { trimmed.removeLast() }
        return trimmed
    }
}
