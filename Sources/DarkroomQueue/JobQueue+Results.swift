import Foundation
import LibPQ
import Logging

/// Reporting back on a claimed job. Each report runs in one transaction that first locks the
/// job and checks the lease, so a worker that lost its lease writes nothing at all.
extension JobQueue {
    /// Records the adjustment, makes it the asset's current one, and marks the job succeeded.
    /// Returns the new adjustment's id; throws `QueueError.leaseLost` if the lease is gone.
    public func complete(_ job: ClaimedJob, with adjustment: NewAdjustment) throws -> Int64 {
        let current = try complete(job, with: JobResult(.layers([adjustment]), expectedCurrent: nil))
        guard let current else { preconditionFailure("a completion with a layer always leaves a current adjustment") }
        return current
    }

    /// Records what the job did in one transaction: its adjustment records, the asset's new
    /// current adjustment, an `asset_history` entry when the look changed, and the job's
    /// success. Returns the asset's current adjustment afterwards (`nil`: the original).
    /// Throws `QueueError.leaseLost` if the lease is gone and `QueueError.assetChanged` if the
    /// asset's current adjustment is no longer what the job read; either way nothing is written.
    @discardableResult
    public func complete(_ job: ClaimedJob, with result: JobResult) throws -> Int64? {
        try connection.withTransaction {
            let assetID = try lockLeasedJob(job).assetID
            let previous = try connection.query(
                "SELECT current_adjustment_id FROM darkroom.assets WHERE id = $1 FOR UPDATE", [.int(assetID)]
            ).first.map { try $0["current_adjustment_id"].decode(Int64?.self) } ?? nil
            if let expected = result.expectedCurrent, expected.id != previous {
                throw QueueError.assetChanged(assetID: assetID, expected: expected.id, found: previous)
            }
            var current = previous
            var recorded: Int64?
            var outcome: String?
            switch result.change {
            case .layers(let layers):
                precondition(!layers.isEmpty, "a completion with layers needs at least one")
                var base = layers[0].baseAdjustmentID
                for (index, layer) in layers.enumerated() {
                    base = try insert(layer, assetID: assetID, jobID: index == layers.count - 1 ? job.id : nil, base: base)
                }
                recorded = base
                current = base
            case .original(let reason):
                current = nil
                outcome = reason
            case .none(let reason):
                outcome = reason
            }
            if current != previous {
                _ = try connection.query("UPDATE darkroom.assets SET current_adjustment_id = $2 WHERE id = $1",
                                         [.int(assetID), .optional(current, PostgresBind.int)])
                _ = try connection.query("""
                    INSERT INTO darkroom.asset_history (asset_id, job_id, action, adjustment_id, previous_adjustment_id)
                    VALUES ($1, $2, $3, $4, $5)
                    """, [.int(assetID), .int(job.id), .text(job.work.kind), .optional(current, PostgresBind.int),
                          .optional(previous, PostgresBind.int)])
            }
            _ = try connection.query("""
                UPDATE darkroom.jobs
                   SET state = 'succeeded', finished_at = now(), adjustment_id = $2, outcome = $3,
                       completed_lease = lease_token, lease_token = NULL, lease_expires_at = NULL, crashes = 0
                 WHERE id = $1
                """, [.int(job.id), .optional(recorded, PostgresBind.int), .optional(outcome, PostgresBind.text)])
            logger.debug("completed job", metadata: [
                "job_id": "\(job.id)", "kind": "\(job.work.kind)", "current_adjustment_id": "\(current.map(String.init) ?? "original")"])
            return current
        }
    }

    private func insert(_ adjustment: NewAdjustment, assetID: Int64, jobID: Int64?, base: Int64?) throws -> Int64 {
        try connection.query("""
            INSERT INTO darkroom.adjustments (asset_id, job_id, format_identifier, format_version, data,
                                              base_adjustment_id, rendered_path, rendered_width, rendered_height,
                                              rendered_bytes, rerender_of)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
            RETURNING id
            """, [
                .int(assetID), .optional(jobID, PostgresBind.int), .text(adjustment.formatIdentifier),
                .text(adjustment.formatVersion), .bytes(adjustment.data), .optional(base, PostgresBind.int),
                .text(adjustment.renderedPath), .int(Int64(adjustment.renderedWidth)),
                .int(Int64(adjustment.renderedHeight)), .int(adjustment.renderedBytes),
                .optional(adjustment.rerenderOf, PostgresBind.int),
            ])[0]["id"].decode(Int64.self)
    }

    /// Records a failed attempt. Permanent failures and the last attempt fail the job; other
    /// failures put it back in the queue after `retryPolicy`'s backoff. Returns the new state.
    public func fail(_ job: ClaimedJob, _ failure: JobFailure, retryPolicy: RetryPolicy) throws -> JobState {
        try recordFailure(job, failure) { attempts, maxAttempts in
            retryPolicy.outcome(of: failure, attempts: attempts, maxAttempts: maxAttempts, randomUnit: Double.random(in: 0...1))
        }
    }

    /// Records a failed attempt with what the caller decided (from the claimed job's attempts,
    /// which the held lease keeps unchanged): `.fail` fails the job, `.retry` queues it again
    /// after that delay. Returns the new state.
    public func fail(_ job: ClaimedJob, _ failure: JobFailure, outcome: FailureOutcome) throws -> JobState {
        try recordFailure(job, failure) { _, _ in outcome }
    }

    private func recordFailure(
        _ job: ClaimedJob, _ failure: JobFailure, decide: (_ attempts: Int, _ maxAttempts: Int) -> FailureOutcome
    ) throws -> JobState {
        try connection.withTransaction {
            let locked = try lockLeasedJob(job)
            let next: JobState
            let delay: Duration
            switch decide(locked.attempts, locked.maxAttempts) {
            case .retry(let after): (next, delay) = (.queued, after)
            case .fail: (next, delay) = (.failed, .zero)
            }
            _ = try connection.query("""
                UPDATE darkroom.jobs
                   SET state = $2::text,
                       run_at = CASE WHEN $2::text = 'queued' THEN now() + make_interval(secs => $3::double precision) ELSE run_at END,
                       finished_at = CASE WHEN $2::text = 'failed' THEN now() END,
                       last_error = $4::text || ': ' || $5::text,
                       errors = errors || jsonb_build_array(jsonb_build_object(
                           'attempt', attempts, 'at', now(), 'code', $4::text, 'message', $5::text, 'worker', leased_by)),
                       lease_token = NULL, lease_expires_at = NULL, crashes = 0
                 WHERE id = $1
                """, [.int(job.id), .text(next.rawValue), .double(delay.inSeconds), .text(failure.code.rawValue), .text(failure.message)])
            logger.info("job attempt failed", metadata: [
                "job_id": "\(job.id)", "attempt": "\(locked.attempts)", "code": "\(failure.code)",
                "permanent": "\(failure.isPermanent)", "next_state": "\(next.rawValue)",
                "retry_in_seconds": "\(next == .queued ? delay.inSeconds : 0)",
            ])
            return next
        }
    }

    /// Gives the job back without counting the attempt, e.g. when the worker shuts down, and
    /// wakes other workers to pick it up. With `delay`, it becomes claimable only after that
    /// long (a job this worker cannot render goes back for a newer worker without a busy loop).
    public func release(_ job: ClaimedJob, reason: String? = nil, delay: Duration = .zero) throws {
        try connection.withTransaction {
            _ = try lockLeasedJob(job)
            _ = try connection.query("""
                UPDATE darkroom.jobs
                   SET state = 'queued', attempts = greatest(attempts - 1, 0), lease_token = NULL, lease_expires_at = NULL,
                       crashes = 0, run_at = greatest(run_at, now() + make_interval(secs => $2::double precision)),
                       last_error = coalesce($3::text, last_error)
                 WHERE id = $1
                """, [.int(job.id), .double(delay.inSeconds), .optional(reason, PostgresBind.text)])
            _ = try connection.query("SELECT pg_notify($1, '')", [.text(Self.notificationChannel)])
            logger.debug("released job", metadata: ["job_id": "\(job.id)"])
        }
    }

    /// After a connection broke during `complete`, tells whether that completion committed:
    /// the job succeeded under this very lease (`completed_lease` keeps its token). Returns
    /// the adjustment it recorded, if any, inside `.some`.
    public func completionCommitted(_ job: ClaimedJob) throws -> Int64?? {
        try connection.query("""
            SELECT adjustment_id FROM darkroom.jobs WHERE id = $1 AND state = 'succeeded' AND completed_lease = $2::uuid
            """, [.int(job.id), .text(job.leaseToken.uuidString)]).first.map { $0["adjustment_id"].int64 }
    }

    /// Locks the job's row for the rest of the transaction, and throws `leaseLost` unless `job`'s
    /// lease is still the live one.
    private func lockLeasedJob(_ job: ClaimedJob) throws -> (assetID: Int64, attempts: Int, maxAttempts: Int) {
        let rows = try connection.query("""
            SELECT asset_id, state, lease_token, lease_expires_at, lease_expires_at < now() AS lease_expired,
                   attempts, max_attempts
              FROM darkroom.jobs
             WHERE id = $1
               FOR UPDATE
            """, [.int(job.id)])
        let row = rows.first
        let loss = LeaseLoss.judging(
            lease: job.leaseToken, state: try row.map { try $0["state"].decode(JobState.self) },
            leaseToken: try row?["lease_token"].decode(UUID?.self), leaseExpiresAt: try row?["lease_expires_at"].decode(Date?.self),
            leaseExpired: try row?["lease_expired"].decode(Bool?.self) ?? false)
        if let row, loss == nil {
            return (try row["asset_id"].decode(Int64.self), try row["attempts"].decode(Int.self),
                    try row["max_attempts"].decode(Int.self))
        }
        let reason = loss ?? .deleted
        logger.warning("lease lost; discarding the job's result", metadata: ["job_id": "\(job.id)", "reason": "\(reason)"])
        throw QueueError.leaseLost(jobID: job.id, reason: reason)
    }
}
