/// What `DatabaseConnection` sends: a file of `SQL/`, embedded in the binary. A statement of
/// `SQL/queries` is named by its file, so a read two callers share is one file
/// (`read_workers.sql`: `darkroom status` and the queue's gauges); a migration or a definition
/// is a script of several. No Swift string becomes one, so SQL has one home.
struct Query: Sendable {
    let sql: String

    /// A file of `SQL/`, embedded.
    init(_ sql: [UInt8]) {
        self.sql = String(decoding: sql, as: UTF8.self)
    }

    /// A migration's script (a file of `SQL/migrations`, or a test's).
    init(_ migration: Migration) {
        sql = migration.sql
    }

    /// A definition's script (a file of `SQL/definitions`).
    init(_ definition: SchemaDefinition) {
        sql = definition.sql
    }

    static let accessRolesExist = Query(PackageResources.access_roles_exist_sql)
    static let addAsset = Query(PackageResources.add_asset_sql)
    static let addFilter = Query(PackageResources.add_filter_sql)
    static let addRendition = Query(PackageResources.add_rendition_sql)
    static let beginScriptRun = Query(PackageResources.begin_script_run_sql)
    static let cancelBatch = Query(PackageResources.cancel_batch_sql)
    static let cancelJob = Query(PackageResources.cancel_job_sql)
    static let claim = Query(PackageResources.claim_sql)
    static let completeJob = Query(PackageResources.complete_job_sql)
    static let completeRenditionsJob = Query(PackageResources.complete_renditions_job_sql)
    static let completedUnderLease = Query(PackageResources.completed_under_lease_sql)
    static let countFilterRerender = Query(PackageResources.count_filter_rerender_sql)
    static let createMigrationsTable = Query(PackageResources.create_migrations_table_sql)
    static let dashboardKey = Query(PackageResources.dashboard_key_sql)
    static let endSession = Query(PackageResources.end_session_sql)
    static let enqueueFilterRerender = Query(PackageResources.enqueue_filter_rerender_sql)
    static let failJob = Query(PackageResources.fail_job_sql)
    static let findAssetByContent = Query(PackageResources.find_asset_by_content_sql)
    static let finishScriptRun = Query(PackageResources.finish_script_run_sql)
    static let forgetExpiredSessions = Query(PackageResources.forget_expired_sessions_sql)
    static let grantAccess = Query(PackageResources.grant_access_sql)
    static let leaseProblem = Query(PackageResources.lease_problem_sql)
    static let leasesHaveExpired = Query(PackageResources.leases_have_expired_sql)
    static let loadSession = Query(PackageResources.load_session_sql)
    static let lockMigrations = Query(PackageResources.lock_migrations_sql)
    static let migrationsTableExists = Query(PackageResources.migrations_table_exists_sql)
    static let queueEdit = Query(PackageResources.queue_edit_sql)
    static let queueRerender = Query(PackageResources.queue_rerender_sql)
    static let queueRevert = Query(PackageResources.queue_revert_sql)
    static let queueStaleRerender = Query(PackageResources.queue_stale_rerender_sql)
    static let readAccessRoles = Query(PackageResources.read_access_roles_sql)
    static let readActiveBatches = Query(PackageResources.read_active_batches_sql)
    static let readAdjustment = Query(PackageResources.read_adjustment_sql)
    static let readAdjustmentRenditions = Query(PackageResources.read_adjustment_renditions_sql)
    static let readAdjustments = Query(PackageResources.read_adjustments_sql)
    static let readAppliedMigrations = Query(PackageResources.read_applied_migrations_sql)
    static let readAsset = Query(PackageResources.read_asset_sql)
    static let readAssetChanges = Query(PackageResources.read_asset_changes_sql)
    static let readAssetRenditions = Query(PackageResources.read_asset_renditions_sql)
    static let readAuditTrail = Query(PackageResources.read_audit_trail_sql)
    static let readBatch = Query(PackageResources.read_batch_sql)
    static let readBatchChanges = Query(PackageResources.read_batch_changes_sql)
    static let readBatchFailureCodes = Query(PackageResources.read_batch_failure_codes_sql)
    static let readBatches = Query(PackageResources.read_batches_sql)
    static let readCurrentAdjustment = Query(PackageResources.read_current_adjustment_sql)
    static let readCurrentChain = Query(PackageResources.read_current_chain_sql)
    static let readCurrentRenditions = Query(PackageResources.read_current_renditions_sql)
    static let readFailureCodes = Query(PackageResources.read_failure_codes_sql)
    static let readFailures = Query(PackageResources.read_failures_sql)
    static let readFilterVersions = Query(PackageResources.read_filter_versions_sql)
    static let readJob = Query(PackageResources.read_job_sql)
    static let readJobCounts = Query(PackageResources.read_job_counts_sql)
    static let readJobErrors = Query(PackageResources.read_job_errors_sql)
    static let readMissingRenditions = Query(PackageResources.read_missing_renditions_sql)
    static let readOldestQueued = Query(PackageResources.read_oldest_queued_sql)
    static let readRecentFailures = Query(PackageResources.read_recent_failures_sql)
    static let readRecentJobs = Query(PackageResources.read_recent_jobs_sql)
    static let readRenditionVersions = Query(PackageResources.read_rendition_versions_sql)
    static let readStaleCount = Query(PackageResources.read_stale_count_sql)
    static let readStaleCounts = Query(PackageResources.read_stale_counts_sql)
    static let readThroughput = Query(PackageResources.read_throughput_sql)
    static let readUpgradedChain = Query(PackageResources.read_upgraded_chain_sql)
    static let readWaitingForEditor = Query(PackageResources.read_waiting_for_editor_sql)
    static let readWorkers = Query(PackageResources.read_workers_sql)
    static let recordImportedLayer = Query(PackageResources.record_imported_layer_sql)
    static let recordMigration = Query(PackageResources.record_migration_sql)
    static let recordSignIn = Query(PackageResources.record_sign_in_sql)
    static let releaseJob = Query(PackageResources.release_job_sql)
    static let removeRendition = Query(PackageResources.remove_rendition_sql)
    static let rerenderNeeded = Query(PackageResources.rerender_needed_sql)
    static let rescueLeases = Query(PackageResources.rescue_leases_sql)
    static let retryBatch = Query(PackageResources.retry_batch_sql)
    static let retryJob = Query(PackageResources.retry_job_sql)
    static let saveSession = Query(PackageResources.save_session_sql)
    static let schemaReady = Query(PackageResources.schema_ready_sql)
    static let sendHeartbeat = Query(PackageResources.send_heartbeat_sql)
    static let setAuditActor = Query(PackageResources.set_audit_actor_sql)
    static let signInWait = Query(PackageResources.sign_in_wait_sql)
    static let statementTimeout = Query(PackageResources.statement_timeout_sql)
    static let workerStopped = Query(PackageResources.worker_stopped_sql)
}
