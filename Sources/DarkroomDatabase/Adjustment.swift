import Foundation
internal import LibPQ

/// The result of an edit job: the adjustment that was applied and the JPEG it produced.
public struct NewAdjustment: Sendable, Hashable {
    public var formatIdentifier: String
    public var formatVersion: String
    public var data: [UInt8]
    /// The adjustment this one was applied on top of; it must belong to the same asset.
    public var baseAdjustmentID: Int64?
    public var renderedPath: String
    public var renderedWidth: Int
    public var renderedHeight: Int
    public var renderedBytes: Int64
    /// For a replayed layer: the adjustment whose edit it renders again.
    public var rerenderOf: Int64?
    /// What its render met without spoiling the pixels (kept in `adjustments.warnings`).
    public var warnings: [RecordedWarning]
    /// What made the render, a JSON object (`adjustments.rendered_with`; the worker's `RenderProvenance`).
    public var renderedWith: String?

    public init(
        formatIdentifier: String, formatVersion: String, data: [UInt8], baseAdjustmentID: Int64? = nil,
        renderedPath: String, renderedWidth: Int, renderedHeight: Int, renderedBytes: Int64, rerenderOf: Int64? = nil,
        warnings: [RecordedWarning] = [], renderedWith: String? = nil
    ) {
        self.renderedWith = renderedWith
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.data = data
        self.baseAdjustmentID = baseAdjustmentID
        self.renderedPath = renderedPath
        self.renderedWidth = renderedWidth
        self.renderedHeight = renderedHeight
        self.renderedBytes = renderedBytes
        self.rerenderOf = rerenderOf
        self.warnings = warnings
    }
}

/// A row of `darkroom.adjustments`, which is append-only.
public struct Adjustment: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var assetID: Int64
    /// The job that produced it; `nil` for adjustments recorded outside the queue.
    public var jobID: Int64?
    public var formatIdentifier: String
    public var formatVersion: String
    public var data: [UInt8]
    public var baseAdjustmentID: Int64?
    public var renderedPath: String
    public var renderedWidth: Int
    public var renderedHeight: Int
    public var renderedBytes: Int64
    public var createdAt: Date
    /// For a replayed layer: the adjustment whose edit it renders again.
    public var rerenderOf: Int64?
    /// What its render met without spoiling the pixels.
    public var warnings: [RecordedWarning]
    /// Whether its render carries an HDR gain map (`adjustment_records.carries_hdr`, from the
    /// provenance record).
    public var carriesHDR = false

    /// A row of `darkroom.adjustment_records`, whose view owns the column list.
    init(row: PostgresRow) throws {
        id = try row["id"].decode(Int64.self)
        assetID = try row["asset_id"].decode(Int64.self)
        jobID = try row["job_id"].decode(Int64?.self)
        formatIdentifier = try row["format_identifier"].decode(String.self)
        formatVersion = try row["format_version"].decode(String.self)
        data = try row["data"].decode([UInt8].self)
        baseAdjustmentID = try row["base_adjustment_id"].decode(Int64?.self)
        renderedPath = try row["rendered_path"].decode(String.self)
        renderedWidth = try row["rendered_width"].decode(Int.self)
        renderedHeight = try row["rendered_height"].decode(Int.self)
        renderedBytes = try row["rendered_bytes"].decode(Int64.self)
        createdAt = try row["created_at"].decode(Date.self)
        rerenderOf = try row["rerender_of"].decode(Int64?.self)
        warnings = try row["warnings"].decode(RecordedWarnings.self).list
        carriesHDR = try row["carries_hdr"].decode(Bool.self)
    }

    public init(
        id: Int64, assetID: Int64, jobID: Int64? = nil, formatIdentifier: String, formatVersion: String, data: [UInt8],
        baseAdjustmentID: Int64? = nil, renderedPath: String, renderedWidth: Int, renderedHeight: Int,
        renderedBytes: Int64, createdAt: Date = Date(timeIntervalSince1970: 0), rerenderOf: Int64? = nil,
        warnings: [RecordedWarning] = []
    ) {
        self.id = id
        self.assetID = assetID
        self.jobID = jobID
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.data = data
        self.baseAdjustmentID = baseAdjustmentID
        self.renderedPath = renderedPath
        self.renderedWidth = renderedWidth
        self.renderedHeight = renderedHeight
        self.renderedBytes = renderedBytes
        self.createdAt = createdAt
        self.rerenderOf = rerenderOf
        self.warnings = warnings
    }
}
