internal import LibPQ

extension AssetStore {
    /// The renditions `adjustmentID`'s render wrote, by name (`darkroom.adjustment_renditions`).
    public func renditions(ofAdjustment adjustmentID: Int64) throws -> [RenditionFile] {
        try connection.query(
            .readAdjustmentRenditions, [.int(adjustmentID)]
        ).map(RenditionFile.init(row:))
    }

    /// The current renditions `adjustmentID`'s render did not write at their current version
    /// (`darkroom.missing_renditions`, the rule `rerender --stale` counts by): what a renditions
    /// job writes for it.
    public func missingRenditions(ofAdjustment adjustmentID: Int64) throws -> [MissingRendition] {
        try connection.query(
            .readMissingRenditions, [.int(adjustmentID)]
        ).map {
            MissingRendition(
                name: try $0["name"].decode(String.self), version: try $0["version"].decode(Int.self),
                replaces: try $0["replaces"].decode(String?.self))
        }
    }

    /// `name`'s file among the renditions of `assetID`'s current adjustment; nil when it wrote none.
    public func currentRendition(of assetID: Int64, name: String) throws -> RenditionFile? {
        try connection.query(
            .readAssetRenditions, [.int(assetID), .text(name)]
        ).first.map(RenditionFile.init(row:))
    }
}

/// One file a render wrote for a rendition, as its record keeps it.
public struct RenditionFile: Sendable, Equatable {
    public var name: String
    public var version: Int
    /// "jpeg", "webp" or "avif".
    public var format: String
    /// Its storage key.
    public var path: String
    public var width: Int
    public var height: Int
    public var bytes: Int64
    /// "current", "stale" (a newer version is defined) or "removed" (the rendition was removed;
    /// the orphan cleanup deletes its file).
    public var state: String

    init(row: PostgresRow) throws {
        name = try row["name"].decode(String.self)
        version = try row["version"].decode(Int.self)
        format = try row["format"].decode(String.self)
        path = try row["path"].decode(String.self)
        width = try row["width"].decode(Int.self)
        height = try row["height"].decode(Int.self)
        bytes = try row["bytes"].decode(Int64.self)
        state = try row["state"].decode(String.self)
    }
}

/// A current rendition a record's render did not write at its current version.
public struct MissingRendition: Sendable, Equatable {
    public var name: String
    public var version: Int
    /// The stored path of the older version it wrote, which the new file replaces.
    public var replaces: String?

    public init(name: String, version: Int, replaces: String?) {
        self.name = name
        self.version = version
        self.replaces = replaces
    }
}
