import Foundation
internal import LibPQ
import Logging
import Timing

/// Reporting back on a claimed job: each report is one call to a server-side function
/// (`SQL/definitions/job_reports.sql`) that locks the job and checks the lease first, so a
/// worker that lost its lease writes nothing at all.
extension JobQueue {
    /// Records the adjustment, makes it the asset's current one, and marks the job succeeded.
    /// Returns the new adjustment's id; throws `QueueError.leaseLost` if the lease is gone.
    public func complete(_ job: ClaimedJob, with adjustment: NewAdjustment) throws -> Int64 {
        let current = try complete(job, with: JobResult(.layers([adjustment]), expectedCurrent: nil))
        guard let current else { preconditionFailure("a completion with a layer always leaves a current adjustment") }
        return current
    }

    /// Records what the job did (`darkroom.complete_job`): its adjustment records (each with
    /// its render's warnings, which the job keeps too), the asset's new current adjustment, an
    /// `asset_history` entry when the look changed, and the job's success. Returns the asset's current adjustment afterwards (`nil`: the original).
    /// Throws `QueueError.leaseLost` if the lease is gone and `QueueError.assetChanged` if the
    /// asset's current adjustment is no longer what the job read; either way nothing is written.
    @discardableResult
    public func complete(_ job: ClaimedJob, with result: JobResult) throws -> Int64? {
        try completeWritingFiles(job, with: result).current
    }

    /// As `complete`; for `.renditions`, also the stored paths of the files they replaced, which
    /// no record names any more (`darkroom.complete_renditions_job`): the caller deletes them.
    public func completeWritingFiles(_ job: ClaimedJob, with result: JobResult) throws -> (
        current: Int64?, replaced: [String]
    ) {
        guard case .renditions(let adjustmentID, let files, let warnings) = result.change else {
            return (try completeLayers(job, with: result), [])
        }
        let rows = try connection.query(
            .completeRenditionsJob,
            [
                .int(job.id), .text(job.leaseToken.uuidString), .int(adjustmentID),
                .text("[" + files.joined(separator: ",") + "]"), .text(RecordedWarning.json(warnings)),
            ])
        let current = try rows[0]["current_adjustment_id"].decode(Int64?.self)
        let written = try report(rows[0], job: job, current: current, expected: adjustmentID)
        return (written, try rows.compactMap { try $0["replaced"].decode(String?.self) })
    }

    private func completeLayers(_ job: ClaimedJob, with result: JobResult) throws -> Int64? {
        var change = "layers"
        var outcome: String?
        var layers: [NewAdjustment] = []
        switch result.change {
        case .layers(let new):
            precondition(!new.isEmpty, "a completion with layers needs at least one")
            layers = new
        case .original(let reason):
            (change, outcome) = ("original", reason)
        case .none(let reason):
            (change, outcome) = ("none", reason)
        case .renditions:
            preconditionFailure("completeWritingFiles records renditions")
        }
        let row = try connection.query(
            .completeJob,
            [
                .int(job.id), .text(job.leaseToken.uuidString), .bool(result.expectedCurrent != nil),
                .optional(result.expectedCurrent?.id, PostgresBind.int), .text(change),
                .optional(outcome, PostgresBind.text),
                .optional(layers.first?.baseAdjustmentID, PostgresBind.int),
                .textArray(layers.map(\.formatIdentifier)), .textArray(layers.map(\.formatVersion)),
                .byteaArray(layers.map(\.data)), .textArray(layers.map(\.renderedPath)),
                .int32Array(layers.map { Int32(clamping: $0.renderedWidth) }),
                .int32Array(layers.map { Int32(clamping: $0.renderedHeight) }),
                .int64Array(layers.map(\.renderedBytes)), .int64Array(layers.map(\.rerenderOf)),
                .text(RecordedWarning.json(perLayer: layers.map(\.warnings))),
                .text("[" + layers.map { $0.renderedWith ?? "null" }.joined(separator: ",") + "]"),
            ])[0]
        let current = try row["current_adjustment_id"].decode(Int64?.self)
        return try report(row, job: job, current: current, expected: result.expectedCurrent?.id)
    }

    /// What a completion's status says: the current adjustment when it was written, else the error.
    private func report(_ row: PostgresRow, job: ClaimedJob, current: Int64?, expected: Int64?) throws -> Int64? {
        switch try ReportStatus(row, job: job) {
        case .done:
            logger.debug(
                "completed job",
                metadata: [
                    "job_id": "\(job.id)", "kind": "\(job.work.kind)",
                    "current_adjustment_id": "\(current.map(String.init) ?? "original")",
                ])
            return current
        case .assetChanged:
            throw QueueError.assetChanged(assetID: job.assetID, expected: expected, found: current)
        case .leaseLost(let loss):
            throw leaseLost(job, loss)
        }
    }

    /// Records a failed attempt (`darkroom.fail_job`). The database decides what follows
    /// (`attempt_fails_job`): a permanent failure or the last attempt fails the job; otherwise
    /// it is queued again, claimable after `retryDelay`. Returns the new state.
    public func fail(_ job: ClaimedJob, _ failure: AttemptFailure, retryDelay: Duration) throws -> JobState {
        let row = try connection.query(
            .failJob,
            [
                .int(job.id), .text(job.leaseToken.uuidString), .bool(failure.isPermanent),
                .double(max(retryDelay, .zero).seconds), .text(failure.code), .text(failure.message),
            ])[0]
        if case .leaseLost(let loss) = try ReportStatus(row, job: job) { throw leaseLost(job, loss) }
        let next = try row["new_state"].decode(StoredJobState.self).state
        logger.info(
            "job attempt failed",
            metadata: [
                "job_id": "\(job.id)", "attempt": "\(job.attempts)", "code": "\(failure.code)",
                "permanent": "\(failure.isPermanent)", "next_state": "\(next.rawValue)",
                "retry_in_seconds": "\(next == .queued ? retryDelay.seconds : 0)",
            ])
        return next
    }

    /// Gives the job back without counting the attempt (`darkroom.release_job`), e.g. when
    /// the worker shuts down, and wakes other workers to pick it up. With `delay`, it becomes
    /// claimable only after that long.
    public func release(_ job: ClaimedJob, reason: String? = nil, delay: Duration = .zero) throws {
        let row = try connection.query(
            .releaseJob,
            [
                .int(job.id), .text(job.leaseToken.uuidString), .optional(reason, PostgresBind.text),
                .double(delay.seconds),
            ])[0]
        if case .leaseLost(let loss) = try ReportStatus(row, job: job) { throw leaseLost(job, loss) }
        logger.debug("released job", metadata: ["job_id": "\(job.id)"])
    }

    /// After a connection broke during `complete`, tells whether that completion committed:
    /// the job succeeded under this very lease. Returns the adjustment it recorded, if any,
    /// inside `.some`.
    public func completionCommitted(_ job: ClaimedJob) throws -> Int64?? {
        try connection.query(
            .completedUnderLease,
            [.int(job.id), .text(job.leaseToken.uuidString)]
        )
        .first.map { try $0["adjustment_id"].decode(Int64?.self) }
    }

    private func leaseLost(_ job: ClaimedJob, _ loss: LeaseLoss) -> QueueError {
        logger.warning(
            "lease lost; discarding the job's result", metadata: ["job_id": "\(job.id)", "reason": "\(loss)"])
        return .leaseLost(jobID: job.id, reason: loss)
    }
}

/// What a report function answered.
private enum ReportStatus {
    case done
    case assetChanged
    case leaseLost(LeaseLoss)

    init(_ row: PostgresRow, job: ClaimedJob) throws {
        let status = try row["status"].decode(String.self)
        switch status {
        case "done": self = .done
        case "asset_changed": self = .assetChanged
        case "lease_lost": self = .leaseLost(LeaseLoss(databaseWord: try row["loss"].decode(String?.self) ?? "expired"))
        default:
            throw DatabaseError(
                PostgresError(code: .unexpectedResult, message: "job \(job.id): the report returned status \(status)"))
        }
    }
}
