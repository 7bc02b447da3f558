import Foundation
import LibPQ
import Logging

/// The edit-job queue in `darkroom.jobs`.
///
/// Workers `claim` jobs, which leases them for a while; only the holder of a live lease can
/// `complete`, `fail` or `release` a job. A worker that dies stops extending its lease, and the
/// next `claim` by anyone puts its job back in the queue.
public struct JobQueue {
    /// `darkroom.jobs` notifies this channel once per INSERT statement; LISTEN to wake idle workers.
    public static let notificationChannel = "darkroom_jobs"

    let connection: PostgresConnection
    let logger: Logger

    public init(_ connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Queues an edit through `darkroom.enqueue_edit`, which validates it; returns the job id.
    public func enqueue(
        assetID: Int64, formatIdentifier: String, formatVersion: String, data: [UInt8],
        priority: Int = 0, batch: String? = nil
    ) throws -> Int64 {
        do {
            let rows = try connection.query(
                "SELECT darkroom.enqueue_edit($1::bigint, $2::text, $3::text, $4::bytea, $5::int, $6::text) AS id",
                [.int(assetID), .text(formatIdentifier), .text(formatVersion), .bytes(data),
                 .int(Int64(priority)), .optional(batch, PostgresBind.text)])
            let id = try rows[0]["id"].decode(Int64.self)
            logger.debug("enqueued edit", metadata: ["job_id": "\(id)", "asset_id": "\(assetID)"])
            return id
        } catch let error as PostgresError where error.kind == .queryFailed {
            switch error.sqlState {
            case "23503": throw QueueError.assetNotFound(assetID)
            case "22004", "22023", "54000": throw QueueError.invalidJob(message: error.message, hint: error.hint)
            default: throw error
            }
        }
    }

    /// Leases up to `limit` due jobs to `workerID`, highest priority first, then oldest `run_at`.
    /// Jobs other workers are claiming at the same moment are skipped, never handed out twice.
    /// First puts back jobs whose leases expired, so they can be claimed again.
    public func claim(workerID: String, limit: Int, lease: Duration) throws -> [ClaimedJob] {
        precondition(limit > 0, "claim limit must be positive")
        precondition(lease > .zero, "the lease must be positive")
        try rescueExpiredLeases()
        // MATERIALIZED: the locking subquery must run once, not be re-evaluated per row.
        let rows = try connection.query("""
            WITH next AS MATERIALIZED (
                SELECT id FROM darkroom.jobs
                 WHERE state = 'queued' AND run_at <= now()
                 ORDER BY priority DESC, run_at, id
                 LIMIT $2
                   FOR UPDATE SKIP LOCKED
            ), claimed AS (
                UPDATE darkroom.jobs AS j
                   SET state = 'running', attempts = j.attempts + 1, lease_token = gen_random_uuid(),
                       leased_by = $1, lease_expires_at = now() + make_interval(secs => $3::double precision),
                       started_at = now()
                  FROM next
                 WHERE j.id = next.id
             RETURNING j.*
            )
            SELECT \(ClaimedJob.columns) FROM claimed ORDER BY priority DESC, run_at, id
            """, [.text(workerID), .int(Int64(limit)), .double(lease.inSeconds)])
        let jobs = try rows.map(ClaimedJob.init(row:))
        if !jobs.isEmpty {
            logger.debug("claimed jobs", metadata: ["worker": "\(workerID)", "job_ids": "\(jobs.map(\.id))"])
        }
        return jobs
    }

    /// Puts running jobs whose lease has expired back in the queue (or fails them if that was
    /// their last attempt), recording why. Returns how many were rescued. `claim` calls this.
    @discardableResult
    public func rescueExpiredLeases() throws -> Int {
        let rows = try connection.query("""
            WITH expired AS MATERIALIZED (
                SELECT id, leased_by, format('lease expired (worker %s stopped heartbeating)', leased_by) AS reason
                  FROM darkroom.jobs
                 WHERE state = 'running' AND lease_expires_at < now()
                   FOR UPDATE SKIP LOCKED
            )
            UPDATE darkroom.jobs AS j
               SET state = CASE WHEN j.attempts >= j.max_attempts THEN 'failed' ELSE 'queued' END,
                   finished_at = CASE WHEN j.attempts >= j.max_attempts THEN now() END,
                   last_error = expired.reason,
                   errors = j.errors || jsonb_build_array(jsonb_build_object(
                       'attempt', j.attempts, 'at', now(), 'code', 'lease_expired',
                       'message', expired.reason, 'worker', expired.leased_by)),
                   lease_token = NULL, lease_expires_at = NULL
              FROM expired
             WHERE j.id = expired.id
            RETURNING j.id, j.state, expired.leased_by
            """)
        for row in rows {
            logger.warning("rescued a job whose lease expired", metadata: [
                "job_id": "\(row["id"].int64 ?? 0)", "worker": "\(row["leased_by"].string ?? "?")",
                "state": "\(row["state"].string ?? "?")",
            ])
        }
        return rows.count
    }

    /// Pushes the lease's expiry to `duration` from now. Returns false, changing nothing, when
    /// the lease is no longer held; the worker should then abandon the job.
    public func extendLease(_ job: ClaimedJob, by duration: Duration) throws -> Bool {
        precondition(duration > .zero, "the lease must be extended by a positive duration")
        let rows = try connection.query("""
            UPDATE darkroom.jobs
               SET lease_expires_at = now() + make_interval(secs => $3::double precision)
             WHERE id = $1 AND state = 'running' AND lease_token = $2::uuid AND lease_expires_at >= now()
            """, [.int(job.id), .text(job.leaseToken.uuidString), .double(duration.inSeconds)])
        return rows.affectedRows == 1
    }
}
