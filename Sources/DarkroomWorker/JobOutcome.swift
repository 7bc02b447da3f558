import DarkroomDatabase

/// How one claimed job ended for this worker. Every attempt ends in exactly one, and the
/// worker's summary (and its exit code) counts them.
enum JobOutcome: Sendable, Equatable {
    /// The result is recorded.
    case succeeded(JobResult, Success)
    /// The attempt failed and the job failed for good (permanent, or out of attempts).
    case failed(JobFailure)
    /// The attempt failed and the job is queued again after `after`.
    case retried(JobFailure, after: Duration)
    /// Given back to the queue without counting the attempt.
    case released(ReleaseReason)
    /// The lease was gone, so nothing was recorded.
    case discarded(LeaseLoss)
    /// Nothing could be recorded; the lease runs out and the queue rescues the job (or a
    /// completion that committed unseen stands).
    case abandoned(Abandonment)

    enum Success: Sendable, Equatable {
        /// `complete` answered; the asset's current adjustment afterwards (`nil`: the original).
        case recorded(currentAdjustmentID: Int64?)
        /// The connection broke during `complete`, and the check after reconnecting found that
        /// it had committed: the adjustment the job recorded, if any.
        case foundCommitted(adjustmentID: Int64?)
    }
}

/// Why a job was given back to the queue without counting the attempt.
enum ReleaseReason: Sendable, Hashable, CustomStringConvertible {
    /// The shutdown grace period ran out while it was rendering.
    case shutdown

    /// Kept in the job's `last_error`.
    var description: String {
        switch self {
        case .shutdown: "released unfinished at worker shutdown"
        }
    }
}

/// Why a job's outcome could not be written.
enum Abandonment: Sendable, Equatable, CustomStringConvertible {
    /// The grace period ran out while the database was away.
    case databaseAwayAtShutdown
    /// The database refused the write for a reason other than a lost lease (a bug, a broken
    /// constraint): retrying would fail the same way.
    case writeFailed(any Error & Sendable)

    var description: String {
        switch self {
        case .databaseAwayAtShutdown: "the shutdown grace period ran out while the database was unavailable"
        case .writeFailed(let error): "\(error)"
        }
    }

    static func == (lhs: Abandonment, rhs: Abandonment) -> Bool {
        switch (lhs, rhs) {
        case (.databaseAwayAtShutdown, .databaseAwayAtShutdown): true
        case (.writeFailed(let left), .writeFailed(let right)): "\(left)" == "\(right)"
        default: false
        }
    }
}

/// The labels of `darkroom_worker_jobs_total`.
extension JobOutcome {
    var metricsOutcome: String {
        switch self {
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .retried: "retried"
        case .released: "released"
        case .discarded: "discarded"
        case .abandoned: "abandoned"
        }
    }

    /// The failure code for failed and retried attempts, the lease loss for discarded ones.
    var metricsCode: String {
        switch self {
        case .failed(let failure), .retried(let failure, _): failure.code.rawValue
        case .discarded(let loss): loss.code
        case .succeeded, .released, .abandoned: ""
        }
    }
}
