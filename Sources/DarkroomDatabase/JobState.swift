/// Where a job is in its life. Stored as text in `darkroom.jobs.state`.
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

    /// True for states no worker will move the job out of (an operator may still retry it).
    public var isFinished: Bool {
        switch self {
        case .queued, .running: return false
        case .succeeded, .failed, .cancelled: return true
        }
    }

    /// Whether any queue operation moves a job from `self` to `next`.
    public func canTransition(to next: JobState) -> Bool {
        switch (self, next) {
        case (.queued, .running), (.queued, .cancelled),
            (.running, .succeeded), (.running, .queued), (.running, .failed), (.running, .cancelled),
            (.failed, .queued), (.cancelled, .queued):
            return true
        default:
            return false
        }
    }
}
