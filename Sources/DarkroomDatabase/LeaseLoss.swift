/// Why a worker no longer holds a job's lease. The database decides it
/// (`darkroom.lease_loss`) and names it with one word; heartbeats and reports both use it.
public enum LeaseLoss: Sendable, Hashable, CustomStringConvertible {
    /// An operator cancelled the job.
    case cancelled
    /// The job left `running` some other way (e.g. its lease expired and the sweep put it
    /// back in the queue, or it was failed or completed elsewhere).
    case finished(JobState)
    /// The lease expired and another worker claimed the job.
    case takenOver
    /// The lease ran out; nobody has taken the job yet.
    case expired
    /// The job was deleted (pruned, or its asset deleted).
    case deleted

    /// `darkroom.lease_loss`'s word; `nil` for a word this build does not know.
    public init?(databaseWord word: String) {
        switch word {
        case "cancelled": self = .cancelled
        case "taken_over": self = .takenOver
        case "expired": self = .expired
        case "deleted": self = .deleted
        default:
            guard let state = JobState(rawValue: word) else { return nil }
            self = .finished(state)
        }
    }

    public var description: String {
        switch self {
        case .cancelled: return "the job was cancelled"
        case .finished(let state): return "the job is now \(state.rawValue)"
        case .takenOver: return "the lease expired and another worker took the job"
        case .expired: return "the lease expired"
        case .deleted: return "the job was deleted"
        }
    }
}
