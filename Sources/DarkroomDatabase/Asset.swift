import Foundation
internal import LibPQ

/// A photo about to be registered, as the importer measured it.
public struct NewAsset: Sendable, Hashable {
    public var originalPath: String
    /// Hex SHA-256 of the file's bytes; identifies the photo however often it is imported.
    public var contentSHA256: String
    public var byteSize: Int64
    /// As stored in the file, before applying `orientation`.
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// EXIF orientation, 1...8 (1 when the file has none).
    public var orientation: Int
    /// Signed decimal degrees (south and west negative); `nil` when the file has no GPS data.
    public var latitude: Double?
    public var longitude: Double?
    /// Metres above sea level (negative below).
    public var altitude: Double?
    public var creationDate: Date?
    /// What gave `creationDate` (`EXIF DateTimeOriginal`, `XMP xmp:CreateDate`, `QuickTime mvhd`).
    public var creationDateSource: String?
    /// Problems met while reading metadata; stored one per line, so newlines inside become spaces.
    public var metadataWarnings: [String]

    public init(
        originalPath: String, contentSHA256: String, byteSize: Int64, pixelWidth: Int, pixelHeight: Int,
        orientation: Int = 1, latitude: Double? = nil, longitude: Double? = nil, altitude: Double? = nil,
        creationDate: Date? = nil, creationDateSource: String? = nil, metadataWarnings: [String] = []
    ) {
        self.originalPath = originalPath
        self.contentSHA256 = contentSHA256
        self.byteSize = byteSize
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.orientation = orientation
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.creationDate = creationDate
        self.creationDateSource = creationDateSource
        self.metadataWarnings = metadataWarnings
    }
}

/// A row of `darkroom.assets`.
public struct Asset: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var originalPath: String
    public var contentSHA256: String
    public var byteSize: Int64
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var orientation: Int
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    public var creationDate: Date?
    /// What gave `creationDate`, as the import named it.
    public var creationDateSource: String?
    /// The newest adjustment, whose rendering is the asset's current look; `nil` until one exists.
    public var currentAdjustmentID: Int64?
    public var metadataWarnings: [String]
    public var importedAt: Date

    /// A row of `darkroom.asset_records`, whose view owns the column list.
    init(row: PostgresRow) throws {
        id = try row["id"].decode(Int64.self)
        originalPath = try row["original_path"].decode(String.self)
        contentSHA256 = try row["content_sha256"].decode(String.self)
        byteSize = try row["byte_size"].decode(Int64.self)
        pixelWidth = try row["pixel_width"].decode(Int.self)
        pixelHeight = try row["pixel_height"].decode(Int.self)
        orientation = try row["orientation"].decode(Int.self)
        latitude = try row["latitude"].decode(Double?.self)
        longitude = try row["longitude"].decode(Double?.self)
        altitude = try row["altitude"].decode(Double?.self)
        creationDate = try row["creation_date"].decode(Date?.self)
        creationDateSource = try row["creation_date_source"].decode(String?.self)
        currentAdjustmentID = try row["current_adjustment_id"].decode(Int64?.self)
        metadataWarnings =
            try row["metadata_warnings"].decode(String?.self)?
            .split(separator: "\n", omittingEmptySubsequences: true).map(String.init) ?? []
        importedAt = try row["imported_at"].decode(Date.self)
    }
}
