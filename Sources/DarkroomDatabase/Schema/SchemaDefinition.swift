/// One file of `SQL/definitions`: the current definition of some functions, views or
/// triggers, written to be applied again and again (`CREATE OR REPLACE`). Every
/// `darkroom migrate` applies all of them, in the order below, in the migrations' transaction,
/// so reading today's `claim_jobs` means opening `claim_jobs.sql`.
public struct SchemaDefinition: Sendable, Hashable {
    /// The file name under `SQL/definitions`.
    public let file: String
    public let sql: String

    init(_ file: String, _ sql: [UInt8]) {
        self.file = file
        self.sql = String(decoding: sql, as: UTF8.self)
    }

    /// Functions that CHECK constraints and generated columns call: applied before the
    /// migrations, so a migration can name them. They read no table.
    public static let beforeMigrations: [SchemaDefinition] = [
        SchemaDefinition("identifiers.sql", PackageResources.identifiers_sql),
        SchemaDefinition("semver.sql", PackageResources.semver_sql),
        SchemaDefinition("validators.sql", PackageResources.validators_sql),
        SchemaDefinition("row_rules.sql", PackageResources.row_rules_sql),
    ]

    /// Everything else, applied after the migrations. A later file may call an earlier one.
    public static let afterMigrations: [SchemaDefinition] = [
        SchemaDefinition("settings.sql", PackageResources.settings_sql),
        SchemaDefinition("notify_workers.sql", PackageResources.notify_workers_sql),
        SchemaDefinition("row_rule_triggers.sql", PackageResources.row_rule_triggers_sql),
        SchemaDefinition("job_counts.sql", PackageResources.job_counts_sql),
        SchemaDefinition("queued_job_formats.sql", PackageResources.queued_job_formats_sql),
        SchemaDefinition("append_only.sql", PackageResources.append_only_sql),
        SchemaDefinition("require.sql", PackageResources.require_sql),
        SchemaDefinition("chain.sql", PackageResources.chain_sql),
        SchemaDefinition("audit.sql", PackageResources.audit_sql),
        SchemaDefinition("job_reports.sql", PackageResources.job_reports_sql),
        SchemaDefinition("rescue_expired_leases.sql", PackageResources.rescue_expired_leases_sql),
        SchemaDefinition("claim_jobs.sql", PackageResources.claim_jobs_sql),
        SchemaDefinition("heartbeat.sql", PackageResources.heartbeat_sql),
        SchemaDefinition("register_asset.sql", PackageResources.register_asset_sql),
        SchemaDefinition("imported_layers.sql", PackageResources.imported_layers_sql),
        SchemaDefinition("filters.sql", PackageResources.filters_sql),
        SchemaDefinition("renditions.sql", PackageResources.renditions_sql),
        SchemaDefinition("library_counts.sql", PackageResources.library_counts_sql),
        SchemaDefinition("enqueue_edit.sql", PackageResources.enqueue_edit_sql),
        SchemaDefinition("enqueue_edits.sql", PackageResources.enqueue_edits_sql),
        SchemaDefinition("enqueue_revert.sql", PackageResources.enqueue_revert_sql),
        SchemaDefinition("enqueue_rerender.sql", PackageResources.enqueue_rerender_sql),
        SchemaDefinition("filter_upgrades.sql", PackageResources.filter_upgrades_sql),
        SchemaDefinition("stale_renders.sql", PackageResources.stale_renders_sql),
        SchemaDefinition("cancel.sql", PackageResources.cancel_sql),
        SchemaDefinition("retry.sql", PackageResources.retry_sql),
        SchemaDefinition("prune_jobs.sql", PackageResources.prune_jobs_sql),
        SchemaDefinition("queue_summary.sql", PackageResources.queue_summary_sql),
        SchemaDefinition("recent_failures.sql", PackageResources.recent_failures_sql),
        SchemaDefinition("failures.sql", PackageResources.failures_sql),
        SchemaDefinition("batch_summary.sql", PackageResources.batch_summary_sql),
        SchemaDefinition("worker_status.sql", PackageResources.worker_status_sql),
        SchemaDefinition("waiting_for_editor.sql", PackageResources.waiting_for_editor_sql),
        SchemaDefinition("oldest_queued.sql", PackageResources.oldest_queued_sql),
        SchemaDefinition("audit_trail.sql", PackageResources.audit_trail_sql),
        SchemaDefinition("throughput.sql", PackageResources.throughput_sql),
        SchemaDefinition("batch_failure_codes.sql", PackageResources.batch_failure_codes_sql),
        SchemaDefinition("asset_changes.sql", PackageResources.asset_changes_sql),
        SchemaDefinition("asset_records.sql", PackageResources.asset_records_sql),
        SchemaDefinition("dashboard_sessions.sql", PackageResources.dashboard_sessions_sql),
        // Last: it grants on every function and view above (Migrator calls darkroom.grant_access).
        SchemaDefinition("roles.sql", PackageResources.roles_sql),
    ]

    public static var all: [SchemaDefinition] { beforeMigrations + afterMigrations }

    /// Views hold no data, and a migration may need to change a column a view reads: every
    /// run drops them all first (`SQL/drop_views.sql`) and the definitions create them again.
    static let dropViews = Query(PackageResources.drop_views_sql)
}
