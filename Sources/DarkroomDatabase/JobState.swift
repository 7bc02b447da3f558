/// Where a job is in its life. Stored as text in `darkroom.jobs.state`; the SQL functions
/// make every move (which states cancel and retry reach: `job_can_be_cancelled`,
/// `job_can_be_retried`; whether a failure retries: `attempt_fails_job`).
///
///     queued ──claim──▶ running ──complete──▶ succeeded
///       │                 │ ├──fail (retryable), release, lease expiry──▶ queued
///       │                 │ └──fail (permanent or out of attempts)──────▶ failed
///       └──cancel──▶ cancelled ◀──cancel──┘
///     failed, cancelled ──retry_job──▶ queued
public enum JobState: String, Sendable, Hashable, CaseIterable {
    case queued
    case running
    case succeeded
    case failed
    case cancelled
}
