import Foundation
internal import LibPQ

/// Operator-facing reads and controls; the controls call the same SQL functions an operator
/// would use from psql, and `status` reads only views, so a viewer role can run it.
extension JobQueue {
    public func job(id: Int64) throws -> Job? {
        guard
            let row = try connection.query(
                .readJob, [.int(id)]
            ).first
        else { return nil }

        let errors = try connection.query(
            .readJobErrors, [.int(id)]
        ).map { entry in
            JobAttemptError(
                attempt: try entry["attempt"].decode(Int.self), at: try entry["at"].decode(Date.self),
                code: try entry["code"].decode(String.self), message: try entry["message"].decode(String.self),
                worker: try entry["worker"].decode(String?.self))
        }

        return Job(
            id: try row["id"].decode(Int64.self), assetID: try row["asset_id"].decode(Int64.self),
            kind: try row["kind"].decode(String.self), state: try row["state"].decode(StoredJobState.self).state,
            formatIdentifier: try row["format_identifier"].decode(String?.self),
            formatVersion: try row["format_version"].decode(String?.self), data: try row["data"].decode([UInt8]?.self),
            priority: try row["priority"].decode(Int.self), runAt: try row["run_at"].decode(Date.self),
            attempts: try row["attempts"].decode(Int.self), maxAttempts: try row["max_attempts"].decode(Int.self),
            lastError: try row["last_error"].decode(String?.self), errors: errors,
            batch: try row["batch"].decode(String?.self),
            leaseToken: try row["lease_token"].decode(UUID?.self), leasedBy: try row["leased_by"].decode(String?.self),
            leaseExpiresAt: try row["lease_expires_at"].decode(Date?.self),
            createdAt: try row["created_at"].decode(Date.self),
            startedAt: try row["started_at"].decode(Date?.self), finishedAt: try row["finished_at"].decode(Date?.self),
            adjustmentID: try row["adjustment_id"].decode(Int64?.self),
            outcome: try row["outcome"].decode(String?.self),
            warnings: try row["warnings"].decode(RecordedWarnings.self).list)
    }

    /// Cancels a queued or running job (`darkroom.cancel_job`). Returns false if it had already
    /// finished; throws `QueueError.jobNotFound` for an unknown id.
    public func cancel(jobID: Int64) throws -> Bool {
        try callJobFunction(.cancelJob, jobID: jobID)
    }

    /// Queues a failed or cancelled job again with fresh attempts (`darkroom.retry_job`). Returns
    /// false for jobs in other states; throws `QueueError.jobNotFound` for an unknown id.
    public func retry(jobID: Int64) throws -> Bool {
        try callJobFunction(.retryJob, jobID: jobID)
    }

    /// Counts by state, the longest-waiting queued job, and the newest `recentFailures` failures.
    public func status(recentFailures: Int) throws -> QueueStatus {
        var counts = Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0, 0) })
        counts.merge(try jobCounts()) { _, counted in counted }
        let oldest = try oldestQueued()

        let failures = try connection.query(
            .readRecentFailures, [.int(Int64(max(recentFailures, 0)))]
        )
        .map { row in
            QueueStatus.FailedJob(
                jobID: try row["job_id"].decode(Int64.self), assetID: try row["asset_id"].decode(Int64.self),
                attempts: try row["attempts"].decode(Int.self), lastError: try row["last_error"].decode(String?.self),
                finishedAt: try row["finished_at"].decode(Date?.self))
        }
        return QueueStatus(countsByState: counts, oldestQueued: oldest, recentFailures: failures)
    }

    private func callJobFunction(_ function: Query, jobID: Int64) throws -> Bool {
        do {
            return try connection.query(function, [.int(jobID)])[0]["changed"].decode(Bool.self)
        } catch let error as DatabaseError where error.postgres.sqlState == .noDataFound {
            throw QueueError.jobNotFound(jobID)
        }
    }
}

/// Whole batches, through `darkroom.cancel_batch` and `darkroom.retry_batch`.
extension JobQueue {
    /// Cancels the batch's queued and running jobs; returns how many.
    public func cancel(batch: String) throws -> Int {
        try connection.query(.cancelBatch, [.text(batch)])[0]["n"].decode(Int.self)
    }

    /// Queues the batch's failed (and with `includeCancelled` cancelled) jobs again; returns how many.
    public func retry(batch: String, includeCancelled: Bool = false) throws -> Int {
        try connection.query(.retryBatch, [.text(batch), .bool(includeCancelled)])[0][
            "n"
        ].decode(Int.self)
    }
}
