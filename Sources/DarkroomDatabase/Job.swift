import Foundation
internal import LibPQ

/// A job a worker has leased. Report back with `complete`, `fail` or `release`; the worker's
/// `heartbeat` extends the lease while it works so the lease does not run out.
public struct ClaimedJob: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var assetID: Int64
    public var work: JobWork
    public var priority: Int
    /// Including this attempt (1 on the first run).
    public var attempts: Int
    public var maxAttempts: Int
    /// Proves ownership: every write for this job checks it.
    public var leaseToken: UUID
    public var leasedBy: String
    public var leaseExpiresAt: Date
    public var batch: String?
    public var runAt: Date
    /// Attempts in a row, before this one, whose worker died holding the job.
    public var crashes: Int

    /// The edit's format (or, for a re-render, the upgraded one), for logs and claim rules.
    public var formatIdentifier: String? {
        switch work {
        case .edit(let identifier, _, _): return identifier
        case .rerender(let identifier, _, _): return identifier
        case .revert, .revertLast, .renditions: return nil
        }
    }

    /// The edit's adjustment data; `nil` for other kinds.
    public var data: [UInt8]? {
        if case .edit(_, _, let data) = work { return data }
        return nil
    }

    /// The edit's version, or the version a re-render must reach.
    public var formatVersion: String? {
        switch work {
        case .edit(_, let version, _): return version
        case .rerender(_, let version, _): return version
        case .revert, .revertLast, .renditions: return nil
        }
    }

    /// A row of `SQL/queries/claim.sql`.
    init(row: PostgresRow) throws {
        id = try row["id"].decode(Int64.self)
        assetID = try row["asset_id"].decode(Int64.self)
        work = try JobWork(
            kind: try row["kind"].decode(String.self),
            formatIdentifier: try row["format_identifier"].decode(String?.self),
            formatVersion: try row["format_version"].decode(String?.self), data: try row["data"].decode([UInt8]?.self),
            filter: try FilterUpgrade(row: row))
        priority = try row["priority"].decode(Int.self)
        attempts = try row["attempts"].decode(Int.self)
        maxAttempts = try row["max_attempts"].decode(Int.self)
        leaseToken = try row["lease_token"].decode(UUID.self)
        leasedBy = try row["leased_by"].decode(String.self)
        leaseExpiresAt = try row["lease_expires_at"].decode(Date.self)
        batch = try row["batch"].decode(String?.self)
        runAt = try row["run_at"].decode(Date.self)
        crashes = try row["crashes"].decode(Int.self)
    }
}

/// A `JobState` read from the text of `darkroom.jobs.state` by its raw value (a type of this
/// module's, since JobState's conformance would be public and LibPQ is not).
struct StoredJobState: PostgresDecodable {
    let state: JobState

    init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        let raw = try String(postgresValue: value)
        guard let state = JobState(rawValue: raw) else { throw .unparseable(raw) }
        self.state = state
    }
}

/// One failed attempt, as kept in `darkroom.jobs.errors`.
public struct JobAttemptError: Sendable, Hashable {
    public var attempt: Int
    public var at: Date
    /// As stored; older or newer workers may have written codes this build does not know.
    public var code: String
    public var message: String
    /// The worker that ran the attempt.
    public var worker: String?
}

/// A row of `darkroom.jobs`, for inspection.
public struct Job: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var assetID: Int64
    public var kind: String
    public var state: JobState
    /// `nil` for reverts and whole-chain re-renders.
    public var formatIdentifier: String?
    public var formatVersion: String?
    public var data: [UInt8]?
    public var priority: Int
    public var runAt: Date
    public var attempts: Int
    public var maxAttempts: Int
    public var lastError: String?
    /// Oldest first.
    public var errors: [JobAttemptError]
    public var batch: String?
    public var leaseToken: UUID?
    /// The worker running the job, or the last one that did.
    public var leasedBy: String?
    public var leaseExpiresAt: Date?
    public var createdAt: Date
    public var startedAt: Date?
    public var finishedAt: Date?
    /// The top layer the job recorded.
    public var adjustmentID: Int64?
    /// What a job that succeeded without recording an adjustment did.
    public var outcome: String?
    /// What its renders met without spoiling the pixels, bottom layer first.
    public var warnings: [RecordedWarning] = []
}

/// A snapshot for operators: how many jobs are where, what has waited longest, what failed.
public struct QueueStatus: Sendable, Hashable {
    public struct WaitingJob: Sendable, Hashable {
        public var jobID: Int64
        public var runAt: Date
        /// How long the job has been due; zero while it still waits for a retry's `runAt`.
        public var age: Duration
    }

    public struct FailedJob: Sendable, Hashable {
        public var jobID: Int64
        public var assetID: Int64
        public var attempts: Int
        public var lastError: String?
        public var finishedAt: Date?
    }

    /// Every state, 0 when no job is in it.
    public var countsByState: [JobState: Int]
    /// The queued job with the earliest `run_at`, if any job is queued.
    public var oldestQueued: WaitingJob?
    /// Newest first.
    public var recentFailures: [FailedJob]
}

extension FilterUpgrade {
    /// A job row's filter upgrade, or `nil` (the columns are all set or all NULL).
    init?(row: PostgresRow) throws {
        guard let name = try row["filter_name"].decode(String?.self),
            let version = try row["filter_version"].decode(String?.self),
            let sha256 = try row["filter_sha256"].decode(String?.self)
        else { return nil }
        self.init(name: name, version: version, sha256: sha256)
    }
}
