import LibPQ

/// One statement of `SQL/queries`, embedded in the binary like the schema: what DarkroomDatabase
/// sends that is neither a migration nor a definition. Its file names the statement, so a read
/// two callers share is one file (`read_workers.sql`: `darkroom status` and the queue's gauges).
struct Query: Sendable {
    let sql: String

    init(_ sql: [UInt8]) {
        self.sql = String(decoding: sql, as: UTF8.self)
    }

    static let schemaReady = Query(PackageResources.schema_ready_sql)
    static let readWorkers = Query(PackageResources.read_workers_sql)
    static let readJobCounts = Query(PackageResources.read_job_counts_sql)
    static let readOldestQueued = Query(PackageResources.read_oldest_queued_sql)
    static let statementTimeout = Query(PackageResources.statement_timeout_sql)
    static let leaseProblem = Query(PackageResources.lease_problem_sql)
    static let sendHeartbeat = Query(PackageResources.send_heartbeat_sql)
    static let loadSession = Query(PackageResources.load_session_sql)
    static let saveSession = Query(PackageResources.save_session_sql)
    static let endSession = Query(PackageResources.end_session_sql)
    static let forgetExpiredSessions = Query(PackageResources.forget_expired_sessions_sql)
    static let dashboardKey = Query(PackageResources.dashboard_key_sql)
    static let signInWait = Query(PackageResources.sign_in_wait_sql)
    static let recordSignIn = Query(PackageResources.record_sign_in_sql)
    static let beginJobRun = Query(PackageResources.begin_job_run_sql)
    static let finishJobRun = Query(PackageResources.finish_job_run_sql)
}

extension PostgresConnection {
    /// Sends one statement of `SQL/queries`.
    func query(_ query: Query, _ binds: [PostgresBind] = []) throws -> PostgresRows {
        try self.query(query.sql, binds)
    }
}
