import LibPQ

/// Reads and registers photos in `darkroom.assets`.
public struct AssetStore {
    let connection: PostgresConnection

    public init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    /// Registers a photo, or finds it if a file with the same content was registered before (in
    /// which case nothing is changed). `created` tells which happened.
    public func register(_ asset: NewAsset) throws -> (id: Int64, created: Bool) {
        let sha256 = asset.contentSHA256.lowercased()
        let warnings = asset.metadataWarnings
            .map { $0.split(whereSeparator: \.isNewline).joined(separator: " ") }
            .joined(separator: "\n")
        let inserted: PostgresRows
        do {
            inserted = try connection.query("""
                INSERT INTO darkroom.assets (original_path, content_sha256, byte_size, pixel_width, pixel_height,
                                             orientation, latitude, longitude, altitude, creation_date, metadata_warnings)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                ON CONFLICT (content_sha256) DO NOTHING
                RETURNING id
                """, [
                    .text(asset.originalPath), .text(sha256), .int(asset.byteSize),
                    .int(Int64(asset.pixelWidth)), .int(Int64(asset.pixelHeight)), .int(Int64(asset.orientation)),
                    .optional(asset.latitude, PostgresBind.double), .optional(asset.longitude, PostgresBind.double),
                    .optional(asset.altitude, PostgresBind.double), .optional(asset.creationDate, PostgresBind.timestamp),
                    warnings.isEmpty ? .null : .text(warnings),
                ])
        } catch let error as PostgresError where error.sqlState == "23514" {
            throw QueueError.invalidAsset(path: asset.originalPath, constraint: error.constraintName ?? "a check constraint", message: error.message)
        }
        if let row = inserted.first {
            return (try row["id"].decode(Int64.self), true)
        }
        // ON CONFLICT waited for any concurrent insert of the same file to commit, so it is visible now.
        let existing = try connection.query("SELECT id FROM darkroom.assets WHERE content_sha256 = $1", [.text(sha256)])
        guard let row = existing.first else {
            // Only possible if the conflicting row was deleted in between; registering again inserts it.
            return try register(asset)
        }
        return (try row["id"].decode(Int64.self), false)
    }

    public func asset(id: Int64) throws -> Asset? {
        try connection.query("SELECT \(Asset.columns) FROM darkroom.assets WHERE id = $1", [.int(id)])
            .first.map(Asset.init(row:))
    }

    public func asset(contentSHA256: String) throws -> Asset? {
        try connection.query("SELECT \(Asset.columns) FROM darkroom.assets WHERE content_sha256 = $1",
                             [.text(contentSHA256.lowercased())])
            .first.map(Asset.init(row:))
    }

    /// The adjustment that defines the asset's current look, or `nil` if it has none yet.
    /// Throws `QueueError.assetNotFound` for an unknown asset.
    public func currentAdjustment(of assetID: Int64) throws -> Adjustment? {
        let rows = try connection.query("""
            SELECT \(Adjustment.columns) FROM darkroom.adjustments
             WHERE id = (SELECT current_adjustment_id FROM darkroom.assets WHERE id = $1)
            """, [.int(assetID)])
        if let row = rows.first { return try Adjustment(row: row) }
        guard try asset(id: assetID) != nil else { throw QueueError.assetNotFound(assetID) }
        return nil
    }

    /// Every adjustment recorded for the asset, oldest first.
    /// The layers the asset shows now, bottom (rendered from the original) first; empty when it
    /// shows its original. `darkroom.current_chains` walks the chain: the one walk there is.
    public func currentChain(of assetID: Int64) throws -> [Adjustment] {
        try connection.query("""
            SELECT \(Adjustment.columns(of: "a"))
              FROM darkroom.current_chains(ARRAY[$1::bigint]) AS layer
              JOIN darkroom.adjustments AS a ON a.id = layer.adjustment_id
             ORDER BY layer.layer_number
            """, [.int(assetID)]).map(Adjustment.init(row:))
    }

    /// Whether a re-render of `formatIdentifier` (below `belowVersion`) still has work on the
    /// asset: `darkroom.rerender_scope`, the rule that also chose which assets to queue.
    public func rerenderNeeded(assetID: Int64, formatIdentifier: String?, belowVersion: String?) throws -> Bool {
        try connection.query("SELECT EXISTS (SELECT 1 FROM darkroom.rerender_scope($2::text, $3::text, ARRAY[$1::bigint])) AS needed", [
            .int(assetID), .optional(formatIdentifier, PostgresBind.text), .optional(belowVersion, PostgresBind.text),
        ])[0]["needed"].decode(Bool.self)
    }

    public func adjustments(of assetID: Int64) throws -> [Adjustment] {
        try connection.query("SELECT \(Adjustment.columns) FROM darkroom.adjustments WHERE asset_id = $1 ORDER BY id", [.int(assetID)])
            .map(Adjustment.init(row:))
    }
}
