import Foundation
internal import LibPQ
import Logging
import Timing

/// The edit-job queue in `darkroom.jobs`.
///
/// Workers `claim` jobs, which leases them for a while; only the holder of a live lease can
/// `complete`, `fail` or `release` a job. A worker that dies stops extending its lease, and the
/// next `claim` by anyone puts its job back in the queue.
public struct JobQueue {
    /// `darkroom.jobs` notifies this channel once per INSERT statement; LISTEN to wake idle workers.
    public static let notificationChannel = "darkroom_jobs"

    let connection: DatabaseConnection
    let logger: Logger

    public init(_ connection: DatabaseConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Queues an edit through `darkroom.enqueue_edit`, which validates it; returns the job id.
    public func enqueue(
        assetID: Int64, formatIdentifier: String, formatVersion: String, data: [UInt8],
        priority: Int = 0, batch: String? = nil
    ) throws -> Int64 {
        let id = try refusals(assetID: assetID) {
            try connection.query(
                .queueEdit,
                [
                    .int(assetID), .text(formatIdentifier), .text(formatVersion), .bytes(data),
                    .int(Int64(priority)), .optional(batch, PostgresBind.text),
                ])[0]["id"].decode(Int64.self)
        }
        logger.debug("enqueued edit", metadata: ["job_id": "\(id)", "asset_id": "\(assetID)"])
        return id
    }

    /// The SQL API's refusals as `QueueError`s: an unknown asset (for calls about `assetID`),
    /// and NULL, invalid or oversize arguments or nothing to act on, with the function's message.
    func refusals<T>(assetID: Int64?, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.code == .queryFailed {
            switch error.postgres.sqlState {
            case .foreignKeyViolation?: throw assetID.map(QueueError.assetNotFound) ?? error
            case .nullValueNotAllowed?, .invalidParameterValue?, .programLimitExceeded?, .noDataFound?:
                throw QueueError.invalidJob(error.message, hint: error.hint, assetID: assetID, cause: error)
            default: throw error
            }
        }
    }

    /// What is wrong with leases of `lease` (`darkroom.lease_problem`, which claims and heartbeats
    /// refuse with), or nil when the database accepts them.
    public func leaseProblem(_ lease: Duration) throws -> String? {
        try connection.query(.leaseProblem, [.double(lease.seconds)])[0]["problem"].decode(String?.self)
    }

    /// Leases up to `limit` due jobs to `workerID`, highest priority first, then oldest `run_at`
    /// (`darkroom.claim_jobs`: one statement, one scan of the claim index). Jobs other workers
    /// are claiming at the same moment are skipped, never handed out twice. With `formats`, only
    /// jobs this worker can render are claimed; others wait for a worker that can. `release` is
    /// the worker's darkroom version: jobs that need a newer one, or any one when nil, wait for
    /// a worker that has it (`darkroom.oldest_release_for`). Expired leases are put back in the
    /// queue first.
    public func claim(
        workerID: String, limit: Int, lease: Duration, formats: [ClaimableFormat]? = nil, release: String? = nil
    ) throws -> [ClaimedJob] {
        precondition(limit > 0, "claim limit must be positive")
        precondition(lease > .zero, "the lease must be positive")
        let rows = try connection.query(
            .claim,
            [
                .text(workerID), .int(Int64(limit)), .double(lease.seconds),
                .optional(formats.map(ClaimableFormat.json), PostgresBind.text), .optional(release, PostgresBind.text),
            ])
        let jobs = try rows.map(ClaimedJob.init(row:))
            .sorted { ($1.priority, $0.runAt, $0.id) < ($0.priority, $1.runAt, $1.id) }
        if !jobs.isEmpty {
            logger.debug("claimed jobs", metadata: ["worker": "\(workerID)", "job_ids": "\(jobs.map(\.id))"])
        }
        return jobs
    }

    /// Whether any running job's lease has run out (its worker is gone; the next claim that
    /// can lock the row puts it back).
    public func hasExpiredLeases() throws -> Bool {
        try connection.query(.leasesHaveExpired)[0]["expired"].decode(Bool.self)
    }

    /// Puts running jobs whose lease has expired back in the queue, or fails them if that was
    /// their last attempt or their workers died `crash_limit` times in a row (a crash loop).
    /// Returns how many were rescued. `claim` does this too; workers also call it with each
    /// heartbeat so that what happened is logged.
    @discardableResult
    public func rescueExpiredLeases() throws -> Int {
        let rows = try connection.query(
            .rescueLeases)
        for row in rows {
            let state = row["new_state"].string ?? "?"
            let metadata: Logger.Metadata = [
                "job_id": "\(row["job_id"].int64 ?? 0)", "worker": "\(row["worker"].string ?? "?")",
                "state": "\(state)", "consecutive_crashes": "\(row["crashes"].int ?? 0)",
            ]
            if state == JobState.failed.rawValue {
                logger.error(
                    "a job whose worker died was parked as failed (crash loop or out of attempts)", metadata: metadata)
            } else {
                logger.warning("rescued a job whose lease expired", metadata: metadata)
            }
        }
        return rows.count
    }

    /// One round trip for a whole worker process: records it as alive (`darkroom.workers`), with
    /// its memory budget's use when it says, and extends the leases of `jobs` by `lease`.
    /// Returns what it learned about each job; a job whose check is not `held` must stop and
    /// write nothing.
    public func heartbeat(
        _ worker: WorkerIdentity, lease: Duration, jobs: [ClaimedJob], formats: [ClaimableFormat],
        stopping: Bool = false, memory: WorkerMemoryReport? = nil
    ) throws -> [Int64: LeaseCheck] {
        let ids = "{" + jobs.map { String($0.id) }.joined(separator: ",") + "}"
        let tokens = "{" + jobs.map { $0.leaseToken.uuidString }.joined(separator: ",") + "}"
        let rows = try connection.query(
            .sendHeartbeat,
            [
                .text(worker.name), .text(worker.host), .int(Int64(worker.pid)), .double(lease.seconds),
                .text(ids), .text(tokens), .text(ClaimableFormat.json(formats)), .bool(stopping),
                .optional(worker.release, PostgresBind.text),
                .optional(memory.map { Int64($0.reservedBytes) }, PostgresBind.int),
                .optional(memory.map { Int64($0.jobsWaiting) }, PostgresBind.int),
            ])
        var checks: [Int64: LeaseCheck] = [:]
        for row in rows {
            let jobID = try row["job_id"].decode(Int64.self)
            checks[jobID] = LeaseCheck(
                jobID: jobID, loss: try row["loss"].decode(String?.self).map(LeaseLoss.init(databaseWord:)))
        }
        return checks
    }

    /// Removes the worker from `darkroom.workers` when it exits cleanly.
    public func workerStopped(_ worker: WorkerIdentity) throws {
        _ = try connection.query(.workerStopped, [.text(worker.name)])
    }
}
