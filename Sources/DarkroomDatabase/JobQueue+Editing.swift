import Foundation
internal import LibPQ

/// Reverts, re-renders, batch progress and history: the editing model's side of the queue,
/// each through the SQL function an operator would call from psql.
extension JobQueue {
    /// Queues a revert of `assetID` (`darkroom.enqueue_revert`): to the original, or with
    /// `lastOnly` without the top layer of its chain. Returns the job id.
    public func enqueueRevert(assetID: Int64, lastOnly: Bool = false, priority: Int = 0, batch: String? = nil) throws
        -> Int64
    {
        try refusals(assetID: assetID) {
            try connection.query(
                .queueRevert,
                [.int(assetID), .bool(lastOnly), .int(Int64(priority)), .optional(batch, PostgresBind.text)]
            )[0]["id"].decode(Int64.self)
        }
    }

    /// Queues a re-render of every asset whose current chain uses `formatIdentifier` (below
    /// `belowVersion`, if given), skipping those with the same re-render already queued
    /// (`darkroom.enqueue_rerender`). Returns how many jobs were queued.
    public func enqueueRerender(
        formatIdentifier: String, belowVersion: String? = nil, priority: Int = -20,
        batch: String? = nil
    ) throws -> Int {
        try refusals(assetID: nil) {
            try connection.query(
                .queueRerender,
                [
                    .text(formatIdentifier), .optional(belowVersion, PostgresBind.text), .int(Int64(priority)),
                    .optional(batch, PostgresBind.text),
                ]
            )[0]["queued"].decode(Int.self)
        }
    }

    /// Counts, rate and ETA of one batch (`darkroom.batch_summary`), or `nil` if it has no jobs.
    public func progress(ofBatch batch: String) throws -> BatchProgress? {
        try batchProgress(.readBatch, [.text(batch)]).first
    }

    /// Every batch with jobs, unfinished ones first, then the newest.
    public func batches() throws -> [BatchProgress] {
        try batchProgress(.readBatches)
    }

    /// The batches with jobs queued or running, by name (the queue's gauges).
    public func activeBatches() throws -> [BatchProgress] {
        try batchProgress(.readActiveBatches)
    }

    private func batchProgress(_ query: Query, _ binds: [PostgresBind] = []) throws -> [BatchProgress] {
        try connection.query(query, binds).map { row in
            BatchProgress(
                batch: try row["batch"].decode(String.self), total: try row["total"].decode(Int.self),
                queued: try row["queued"].decode(Int.self),
                running: try row["running"].decode(Int.self), succeeded: try row["succeeded"].decode(Int.self),
                failed: try row["failed"].decode(Int.self), cancelled: try row["cancelled"].decode(Int.self),
                createdAt: try row["created_at"].decode(Date.self),
                lastFinishedAt: try row["last_finished_at"].decode(Date?.self),
                jobsPerSecond: try row["rate"].decode(Double?.self),
                eta: try row["eta_seconds"].decode(Double?.self).map { .seconds($0) })
        }
    }
}

extension AssetStore {
    /// How the asset's look changed, oldest first (`darkroom.asset_changes`, the view of
    /// `darkroom.asset_history` viewers may read).
    public func history(of assetID: Int64) throws -> [AssetHistoryEntry] {
        try connection.query(
            .readAssetChanges, [.int(assetID)]
        ).map { row in
            AssetHistoryEntry(
                id: try row["id"].decode(Int64.self), jobID: try row["job_id"].decode(Int64?.self),
                action: try row["action"].decode(String.self),
                adjustmentID: try row["adjustment_id"].decode(Int64?.self),
                previousAdjustmentID: try row["previous_adjustment_id"].decode(Int64?.self),
                at: try row["at"].decode(Date.self))
        }
    }
}

/// One change of an asset's look.
public struct AssetHistoryEntry: Sendable, Hashable {
    public var id: Int64
    public var jobID: Int64?
    /// `edit`, `revert`, `revert_last` or `rerender`.
    public var action: String
    /// What the asset showed afterwards; `nil` is the original.
    public var adjustmentID: Int64?
    public var previousAdjustmentID: Int64?
    public var at: Date
}
