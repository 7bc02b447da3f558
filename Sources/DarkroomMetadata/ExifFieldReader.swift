import LibExif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns the entries of one `ExifDocument` into `PhotoMetadata`, noting every field that is
/// present but unusable. Absent fields are normal and produce no warning.
struct ExifFieldReader {
    /// The block as libexif read it, then as rebuilt (`ExifCompaction`) for what libexif did
    /// not reach: each entry is taken from the first that has it.
    let documents: [ExifDocument]
    private(set) var warnings: [String] = []

    init(documents: [ExifDocument]) {
        self.documents = documents
    }

    private func entry(_ tag: ExifTag, in ifd: ExifIFD) -> ExifValue? {
        documents.lazy.compactMap { $0.value(tag, in: ifd) }.first
    }

    mutating func photoMetadata() -> PhotoMetadata {
        let created = creationDate()
        return PhotoMetadata(
            orientation: orientation(),
            latitude: coordinate(.gpsLatitude, reference: .gpsLatitudeRef, name: "GPSLatitude"),
            longitude: coordinate(.gpsLongitude, reference: .gpsLongitudeRef, name: "GPSLongitude"),
            altitude: altitude(),
            creationDate: created?.date,
            creationDateSource: created.map { "EXIF \($0.name)" },
            cameraMake: text(.make, name: "Make"),
            cameraModel: text(.model, name: "Model")
        )
    }

    private mutating func orientation() -> Int {
        guard let value = entry(.orientation, in: .zero) else { return 1 }
        guard let number = value.unsignedIntegers?.first, (1...8).contains(number) else {
            warnings.append("Orientation \(value) is not a number from 1 to 8; using 1 (upright).")
            return 1
        }
        return Int(number)
    }

    private mutating func coordinate(_ tag: ExifTag, reference referenceTag: ExifTag, name: String) -> Double? {
        // A reference letter without a value is a common leftover of a camera without a fix.
        guard let value = entry(tag, in: .gps) else { return nil }
        guard let parts = value.unsignedRationals, parts.count >= 3 else {
            warnings.append("\(name) \(value) is not three rationals (degrees, minutes, seconds); location ignored.")
            return nil
        }
        guard let reference = entry(referenceTag, in: .gps)?.text else {
            warnings.append("\(name) is present but \(name)Ref (N/S or E/W) is missing; location ignored.")
            return nil
        }
        guard
            let degrees = GPSCoordinate.decimalDegrees(
                degrees: parts[0], minutes: parts[1], seconds: parts[2], reference: reference
            )
        else {
            warnings.append(
                "\(name) \(value) with reference \"\(reference)\" is not a valid coordinate; location ignored.")
            return nil
        }
        return degrees
    }

    private mutating func altitude() -> Double? {
        guard let value = entry(.gpsAltitude, in: .gps) else { return nil }
        let reference = entry(.gpsAltitudeRef, in: .gps)
        // A reference that is present but not an integer must not read as "missing" (above
        // sea level), so it becomes an invalid number instead.
        let referenceNumber = reference.map { $0.unsignedIntegers?.first ?? .max }
        guard let altitude = value.unsignedRationals?.first,
            let metres = GPSCoordinate.altitudeMetres(altitude: altitude, reference: referenceNumber)
        else {
            warnings.append(
                "GPSAltitude \(value) with GPSAltitudeRef \(reference.map(\.description) ?? "missing") is not readable; altitude ignored."
            )
            return nil
        }
        return metres
    }

    /// The first of DateTimeOriginal, DateTimeDigitized, DateTime that parses, each with its
    /// own OffsetTime* tag, so a scanned or edited photo still gets a date.
    private mutating func creationDate() -> (date: Date, name: String)? {
        let candidates: [(date: ExifTag, dateIFD: ExifIFD, offset: ExifTag, name: String)] = [
            (.dateTimeOriginal, .exif, .offsetTimeOriginal, "DateTimeOriginal"),
            (.dateTimeDigitized, .exif, .offsetTimeDigitized, "DateTimeDigitized"),
            (.dateTime, .zero, .offsetTime, "DateTime"),
        ]
        for candidate in candidates {
            if let date = date(candidate.date, in: candidate.dateIFD, offset: candidate.offset, name: candidate.name) {
                return (date, candidate.name)
            }
        }
        return nil
    }

    private mutating func date(_ tag: ExifTag, in ifd: ExifIFD, offset offsetTag: ExifTag, name: String) -> Date? {
        guard let value = entry(tag, in: ifd) else { return nil }
        guard let text = value.text else {
            warnings.append("\(name) \(value) is not text; ignored.")
            return nil
        }
        // Offsets live in the Exif IFD even for IFD0's DateTime.
        let offsetValue = entry(offsetTag, in: .exif)
        let offset = offsetValue?.text
        if let date = ExifDateTime.parse(text, offset: offset) { return date }

        guard let utc = ExifDateTime.parse(text, offset: nil) else {
            // Cameras without a clock write all zeros or blanks: "unknown", not corrupt.
            if !text.allSatisfy({ " :0\0".contains($0) }) {
                warnings.append(
                    "\(name) \"\(text)\" is neither an EXIF date (\"YYYY:MM:DD HH:MM:SS\") nor an ISO 8601 one; ignored."
                )
            }
            return nil
        }
        warnings.append(
            "Offset tag \(offsetTag) \(offsetValue.map(\.description) ?? "") for \(name) is not \"+HH:MM\", \"-HH:MM\" or \"Z\"; the time was read as UTC."
        )
        return utc
    }

    private mutating func text(_ tag: ExifTag, name: String) -> String? {
        guard let value = entry(tag, in: .zero) else { return nil }
        guard let text = value.text else {
            warnings.append("\(name) \(value) is not text; ignored.")
            return nil
        }
        // Cameras pad Make and Model with spaces or NULs to a fixed width.
        let isPadding: (Character) -> Bool = { $0.isWhitespace || $0 == "\0" }
        let trimmed = text.trimmingTrailing(where: isPadding).drop(while: isPadding)
        return trimmed.isEmpty ? nil : String(trimmed)
    }
}
