import Foundation
internal import LibPQ

/// Failed jobs with every attempt's error, and a batch's failures by code: `darkroom.failures`
/// and `darkroom.batch_failure_codes`, for `darkroom status` and the dashboard alike.
extension JobQueue {
    /// The newest `limit` failures, optionally of one last-attempt code and one batch, each with
    /// its attempts oldest first.
    public func failures(code: String? = nil, batch: String? = nil, limit: Int) throws -> [FailedJobDetail] {
        let rows = try connection.query(
            .readFailures,
            [.optional(code, PostgresBind.text), .optional(batch, PostgresBind.text), .int(Int64(max(limit, 0)))])
        var failures: [FailedJobDetail] = []
        for row in rows {
            let jobID = try row["job_id"].decode(Int64.self)
            if failures.last?.jobID != jobID {
                failures.append(
                    FailedJobDetail(
                        jobID: jobID, assetID: try row["asset_id"].decode(Int64.self),
                        batch: try row["batch"].decode(String?.self),
                        attempts: try row["attempts"].decode(Int.self), crashes: try row["crashes"].decode(Int.self),
                        lastError: try row["last_error"].decode(String?.self),
                        finishedAt: try row["finished_at"].decode(Date?.self),
                        code: try row["code"].decode(String?.self), errors: []))
            }
            if let attempt = try row["attempt"].decode(Int?.self) {
                failures[failures.count - 1].errors.append(
                    JobAttemptError(
                        attempt: attempt, at: try row["at"].decode(Date.self),
                        code: try row["attempt_code"].decode(String.self),
                        message: try row["message"].decode(String.self), worker: try row["worker"].decode(String?.self))
                )
            }
        }
        return failures
    }

    /// A batch's failed jobs by the code of their last attempt, most frequent first.
    public func failureCodes(ofBatch batch: String) throws -> [FailureCodeCount] {
        try connection.query(
            .readBatchFailureCodes,
            [.text(batch)]
        ).map { row in
            FailureCodeCount(
                code: try row["code"].decode(String?.self), jobs: try row["jobs"].decode(Int.self),
                lastFailedAt: try row["last_failed_at"].decode(Date?.self))
        }
    }
}

extension JobQueue {
    /// Every failed job by the code of its last attempt (`darkroom.failure_codes`), most
    /// frequent first: the codes stored, not the ones this build knows.
    public func failureCodes() throws -> [FailureCodeCount] {
        try connection.query(.readFailureCodes).map { row in
            FailureCodeCount(
                code: try row["code"].decode(String?.self), jobs: try row["jobs"].decode(Int.self),
                lastFailedAt: try row["last_failed_at"].decode(Date?.self))
        }
    }
}

/// A row of `darkroom.failures` with its attempts.
public struct FailedJobDetail: Sendable, Hashable {
    public var jobID: Int64
    public var assetID: Int64
    public var batch: String?
    public var attempts: Int
    public var crashes: Int
    public var lastError: String?
    public var finishedAt: Date?
    /// The last attempt's code; `nil` when no attempt recorded one.
    public var code: String?
    /// Oldest first.
    public var errors: [JobAttemptError]
}

/// How many failed jobs (of a batch, or of all) ended with one code.
public struct FailureCodeCount: Sendable, Hashable {
    /// `nil` for failures without a recorded attempt.
    public var code: String?
    public var jobs: Int
    public var lastFailedAt: Date?
}
