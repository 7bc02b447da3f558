import Foundation
internal import LibPQ

/// What a batch did to its assets, one adjustment and an asset's recent jobs: the reads behind
/// the dashboard's before/after pages.
extension AssetStore {
    /// One adjustment of one asset, or nil when the asset has no such adjustment.
    public func adjustment(id: Int64, assetID: Int64) throws -> Adjustment? {
        try connection.query(.readAdjustment, [.int(id), .int(assetID)]).first.map(Adjustment.init(row:))
    }

    /// The newest `limit` changes the batch's succeeded jobs made, each with what the asset
    /// showed before and after (`darkroom.batch_changes`).
    public func changes(ofBatch batch: String, limit: Int) throws -> [AssetHistoryEntry.Change] {
        try connection.query(
            .readBatchChanges, [.text(batch), .int(Int64(max(limit, 0)))]
        ).map { row in
            AssetHistoryEntry.Change(
                assetID: try row["asset_id"].decode(Int64.self), jobID: try row["job_id"].decode(Int64.self),
                action: try row["action"].decode(String.self),
                before: try row["previous_adjustment_id"].decode(Int64?.self),
                after: try row["adjustment_id"].decode(Int64?.self), at: try row["at"].decode(Date.self))
        }
    }

    /// The asset's newest jobs, whatever their state (`darkroom.asset_jobs`).
    public func recentJobs(of assetID: Int64, limit: Int) throws -> [JobSummary] {
        try connection.query(
            .readRecentJobs, [.int(assetID), .int(Int64(max(limit, 0)))]
        ).map { row in
            JobSummary(
                id: try row["id"].decode(Int64.self), kind: try row["kind"].decode(String.self),
                state: try row["state"].decode(StoredJobState.self).state, batch: try row["batch"].decode(String?.self),
                formatIdentifier: try row["format_identifier"].decode(String?.self),
                formatVersion: try row["format_version"].decode(String?.self),
                createdAt: try row["created_at"].decode(Date.self),
                finishedAt: try row["finished_at"].decode(Date?.self),
                canCancel: try row["can_cancel"].decode(Bool.self), canRetry: try row["can_retry"].decode(Bool.self))
        }
    }
}

extension AssetHistoryEntry {
    /// One job's change of one asset's look: `nil` on either side is the original.
    public struct Change: Sendable, Hashable {
        public var assetID: Int64
        public var jobID: Int64
        public var action: String
        public var before: Int64?
        public var after: Int64?
        public var at: Date
    }
}

/// A job in a list: what it is and where it stands.
public struct JobSummary: Sendable, Hashable {
    public var id: Int64
    public var kind: String
    public var state: JobState
    public var batch: String?
    public var formatIdentifier: String?
    public var formatVersion: String?
    public var createdAt: Date
    public var finishedAt: Date?
    /// Whether `cancel_job` would cancel it now (`darkroom.job_can_be_cancelled` decides).
    public var canCancel: Bool
    /// Whether `retry_job` would queue it again now (`darkroom.job_can_be_retried` decides).
    public var canRetry: Bool
}
