internal import LibPQ

/// Reads and registers photos in `darkroom.assets`.
public struct AssetStore {
    let connection: DatabaseConnection

    public init(_ connection: DatabaseConnection) {
        self.connection = connection
    }

    /// Registers a photo (`darkroom.register_asset`, which a worker role may call), or finds it
    /// if a file with the same content was registered before (in which case nothing is
    /// changed). `created` tells which happened. A path outside the storage root, or a value a
    /// constraint refuses, throws `QueueError.invalidAsset`.
    public func register(_ asset: NewAsset) throws -> (id: Int64, created: Bool) {
        let warnings = asset.metadataWarnings
            .map { $0.split(whereSeparator: \.isNewline).joined(separator: " ") }
            .joined(separator: "\n")
        let row: PostgresRow
        do {
            row = try connection.query(
                .addAsset,
                [
                    .text(asset.originalPath), .text(asset.contentSHA256.lowercased()), .int(asset.byteSize),
                    .int(Int64(asset.pixelWidth)), .int(Int64(asset.pixelHeight)), .int(Int64(asset.orientation)),
                    .optional(asset.latitude, PostgresBind.double), .optional(asset.longitude, PostgresBind.double),
                    .optional(asset.altitude, PostgresBind.double),
                    .optional(asset.creationDate, PostgresBind.timestamp),
                    warnings.isEmpty ? .null : .text(warnings),
                    .optional(asset.creationDateSource, PostgresBind.text),
                ])[0]
        } catch let error as DatabaseError
            where error.postgres.sqlState == .checkViolation || error.postgres.sqlState == .invalidParameterValue
        {
            throw QueueError.invalidAsset(
                path: asset.originalPath, constraint: error.postgres.constraintName ?? "darkroom.register_asset",
                cause: error)
        }
        return (try row["asset_id"].decode(Int64.self), try row["created"].decode(Bool.self))
    }

    /// Records a layer that arrived with the original (`darkroom.record_imported_layer`): an
    /// Apple Photos edit whose render, Apple's own, is already stored under `renderedPath`. Only
    /// on an asset that shows no adjustment yet; returns the new adjustment's id.
    public func recordImportedLayer(
        assetID: Int64, formatIdentifier: String, formatVersion: String, data: [UInt8], renderedPath: String,
        renderedWidth: Int, renderedHeight: Int, renderedBytes: Int64
    ) throws -> Int64 {
        do {
            return try connection.query(
                .recordImportedLayer,
                [
                    .int(assetID), .text(formatIdentifier), .text(formatVersion), .bytes(data), .text(renderedPath),
                    .int(Int64(renderedWidth)), .int(Int64(renderedHeight)), .int(renderedBytes),
                ])[0][0].decode(Int64.self)
        } catch let error as DatabaseError
            where error.postgres.sqlState == .checkViolation || error.postgres.sqlState == .invalidParameterValue
        {
            throw QueueError.invalidAsset(
                path: renderedPath, constraint: error.postgres.constraintName ?? "darkroom.record_imported_layer",
                cause: error)
        }
    }

    public func asset(id: Int64) throws -> Asset? {
        try connection.query(.readAsset, [.int(id)])
            .first.map(Asset.init(row:))
    }

    public func asset(contentSHA256: String) throws -> Asset? {
        try connection.query(
            .findAssetByContent,
            [.text(contentSHA256.lowercased())]
        )
        .first.map(Asset.init(row:))
    }

    /// The adjustment that defines the asset's current look, or `nil` if it has none yet.
    /// Throws `QueueError.assetNotFound` for an unknown asset.
    public func currentAdjustment(of assetID: Int64) throws -> Adjustment? {
        let rows = try connection.query(.readCurrentAdjustment, [.int(assetID)])
        if let row = rows.first { return try Adjustment(row: row) }
        guard try asset(id: assetID) != nil else { throw QueueError.assetNotFound(assetID) }
        return nil
    }

    /// Every adjustment recorded for the asset, oldest first.
    /// The layers the asset shows now, bottom (rendered from the original) first; empty when it
    /// shows its original. `darkroom.current_chains` walks the chain: the one walk there is
    /// (through `asset_chain`, which a viewer may call too).
    public func currentChain(of assetID: Int64) throws -> [Adjustment] {
        try connection.query(.readCurrentChain, [.int(assetID)]).map(Adjustment.init(row:))
    }

    /// The current chain as a filter upgrade replays it: each layer's data with `upgrade`'s
    /// filter brought to its version (`darkroom.upgrade_filter_data`, the one place that
    /// rewrites it), and whether any layer changed, which is whether the upgrade still has work
    /// on the asset.
    public func currentChain(of assetID: Int64, upgrading upgrade: FilterUpgrade) throws
        -> (chain: [Adjustment], upgrades: Bool)
    {
        let rows = try connection.query(
            .readUpgradedChain, [.int(assetID), .text(upgrade.name), .text(upgrade.version), .text(upgrade.sha256)])
        let chain = try rows.map { row in
            var layer = try Adjustment(row: row)
            layer.data = try row["upgraded_data"].decode([UInt8].self)
            return layer
        }
        return (chain, try rows.contains { try $0["upgraded"].decode(Bool.self) })
    }

    /// Whether a re-render of `formatIdentifier` (below `belowVersion`) still has work on the
    /// asset: `darkroom.rerender_scope`, the rule that also chose which assets to queue.
    public func rerenderNeeded(assetID: Int64, formatIdentifier: String?, belowVersion: String?) throws -> Bool {
        try connection.query(
            .rerenderNeeded,
            [
                .int(assetID), .optional(formatIdentifier, PostgresBind.text),
                .optional(belowVersion, PostgresBind.text),
            ])[0]["needed"].decode(Bool.self)
    }

    public func adjustments(of assetID: Int64) throws -> [Adjustment] {
        try connection.query(.readAdjustments, [.int(assetID)])
            .map(Adjustment.init(row:))
    }
}
