#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What darkroom needs from a photo's EXIF. Every field has a safe default so a photo with
/// missing or corrupt EXIF still renders.
public struct PhotoMetadata: Codable, Sendable, Equatable {
    /// EXIF Orientation, 1...8. 1 (upright) when missing or out of range.
    public var orientation: Int
    /// Signed decimal degrees, south negative. `nil` when absent or unreadable.
    public var latitude: Double?
    /// Signed decimal degrees, west negative. `nil` when absent or unreadable.
    public var longitude: Double?
    /// Metres; negative below sea level. `nil` when absent or unreadable.
    public var altitude: Double?
    /// When the photo was taken: DateTimeOriginal with OffsetTimeOriginal, else
    /// DateTimeDigitized with OffsetTimeDigitized, else DateTime with OffsetTime — the first
    /// that parses. Without an offset the wall-clock time is taken as UTC, because EXIF
    /// does not record the zone; such a date can be off by the camera's UTC offset.
    public var creationDate: Date?
    /// Where `creationDate` came from: the EXIF tag (`EXIF DateTimeOriginal`) or, when EXIF has
    /// none, the XMP property (`XMP xmp:CreateDate`); nil without a date.
    public var creationDateSource: String?
    public var cameraMake: String?
    public var cameraModel: String?

    public init(
        orientation: Int = 1,
        latitude: Double? = nil,
        longitude: Double? = nil,
        altitude: Double? = nil,
        creationDate: Date? = nil,
        creationDateSource: String? = nil,
        cameraMake: String? = nil,
        cameraModel: String? = nil
    ) {
        self.orientation = orientation
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.creationDate = creationDate
        self.creationDateSource = creationDateSource
        self.cameraMake = cameraMake
        self.cameraModel = cameraModel
    }
}

extension PhotoMetadata {
    /// Takes a later source's date (with what gave it) where there is no date yet, and its
    /// position where there is none: XMP's after EXIF's, an image sequence's after both.
    mutating func fillGaps(
        date: Date?, source: String?, latitude: Double?, longitude: Double?, altitude: Double? = nil
    ) {
        if creationDate == nil, let date { (creationDate, creationDateSource) = (date, source) }
        if self.latitude == nil, self.longitude == nil, let latitude {
            (self.latitude, self.longitude) = (latitude, longitude)
            self.altitude = self.altitude ?? altitude
        }
    }
}

/// Metadata plus what could not be read, for the caller to log.
public struct MetadataReadResult: Sendable {
    public var metadata: PhotoMetadata
    /// Human-readable notes on unreadable or corrupt fields; empty for a clean file.
    public var warnings: [String]

    public init(metadata: PhotoMetadata, warnings: [String]) {
        self.metadata = metadata
        self.warnings = warnings
    }
}
