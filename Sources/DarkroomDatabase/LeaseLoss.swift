import Foundation

/// Why a worker no longer holds a job's lease. Whatever it writes for the job from then on is
/// refused, so its result is discarded. Code decides on the case; `description` is for people.
public enum LeaseLoss: Sendable, Hashable, CustomStringConvertible {
    /// An operator cancelled the job. Not a failure of the worker: nothing is to be done.
    case cancelled
    /// The job succeeded or failed (a report of this lease that already committed, or one of
    /// another worker's lease).
    case finished(JobState)
    /// The job is queued again: its lease ran out and the queue rescued it, or it was released.
    case requeued
    /// The lease ran out and another worker claimed the job.
    case takenOver
    /// The lease ran out: at that time when the database says so, `nil` when only the worker
    /// noticed (no heartbeat reached the database in time) or the heartbeat could not tell
    /// whether another worker already holds the job.
    case expired(at: Date?)
    /// The job's row is gone.
    case deleted

    /// The loss a job's state shows, for states other than `running` (whose loss depends on
    /// the lease token and expiry, not on the state).
    public init?(jobState: JobState) {
        switch jobState {
        case .running: return nil
        case .cancelled: self = .cancelled
        case .queued: self = .requeued
        case .succeeded, .failed: self = .finished(jobState)
        }
    }

    /// `darkroom.lease_loss`'s word for the loss (the database decides; this only names it).
    /// A word this build does not know still means the lease is gone.
    public init(databaseWord word: String) {
        switch word {
        case "deleted": self = .deleted
        case "taken_over": self = .takenOver
        case "expired": self = .expired(at: nil)
        default:
            if let state = JobState(rawValue: word), let loss = LeaseLoss(jobState: state) {
                self = loss
            } else {
                self = .expired(at: nil)
            }
        }
    }

    /// A stable identifier for logs and metrics.
    public var code: String {
        switch self {
        case .cancelled: "cancelled"
        case .finished: "finished"
        case .requeued: "requeued"
        case .takenOver: "taken_over"
        case .expired: "expired"
        case .deleted: "deleted"
        }
    }

    public var description: String {
        switch self {
        case .cancelled: "the job was cancelled"
        case .finished(let state): "the job is now \(state.rawValue)"
        case .requeued: "the job is back in the queue (its lease ran out and it was rescued, or it was released)"
        case .takenOver: "the lease expired and another worker claimed the job"
        case .expired(let at?): "the lease expired at \(at)"
        case .expired(nil): "the lease expired"
        case .deleted: "the job no longer exists"
        }
    }
}

/// What a heartbeat learned about one job the worker is running.
public struct LeaseCheck: Sendable, Hashable {
    public var jobID: Int64
    /// `nil` while the lease is held; otherwise why it is gone: stop the job and write nothing.
    public var loss: LeaseLoss?

    public var held: Bool { loss == nil }

    public init(jobID: Int64, loss: LeaseLoss?) {
        self.jobID = jobID
        self.loss = loss
    }
}
