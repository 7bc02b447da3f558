/// One numbered change to tables, columns, indexes or constraints. Its SQL runs once, inside
/// the migrator's transaction, and is never edited after it shipped. Functions, views and
/// triggers are not migrations: see `SchemaDefinition`.
public struct Migration: Sendable, Hashable {
    public let version: Int
    public let name: String
    public let sql: String

    /// A migration of darkroom's own (`darkroom`) or a test's.
    init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    init(_ version: Int, _ name: String, _ sql: [UInt8]) {
        self.init(version: version, name: name, sql: String(decoding: sql, as: UTF8.self))
    }

    /// darkroom's migrations, oldest first: `SQL/migrations/NNNN_name.sql`. Append new ones.
    /// (SwiftPM names an embedded file after its file name, with a leading digit replaced by `_`.)
    public static let darkroom: [Migration] = [
        Migration(1, "initial", PackageResources._001_initial_sql),
        Migration(2, "triggers", PackageResources._002_triggers_sql),
        Migration(3, "operator_api", PackageResources._003_operator_api_sql),
        Migration(4, "queue_schema", PackageResources._004_queue_schema_sql),
        Migration(5, "leases", PackageResources._005_leases_sql),
        Migration(6, "operator_batches", PackageResources._006_operator_batches_sql),
        Migration(7, "jobs_support", PackageResources._007_jobs_support_sql),
        Migration(8, "editing_model", PackageResources._008_editing_model_sql),
        Migration(9, "fast_validators", PackageResources._009_fast_validators_sql),
        Migration(10, "semver_precedence", PackageResources._010_semver_precedence_sql),
        Migration(11, "single_call_reports", PackageResources._011_single_call_reports_sql),
        Migration(12, "render_warnings", PackageResources._012_render_warnings_sql),
        Migration(13, "roles_and_audit", PackageResources._013_roles_and_audit_sql),
        Migration(15, "dashboard_counts", PackageResources._015_dashboard_counts_sql),
        Migration(17, "queued_job_formats", PackageResources._017_queued_job_formats_sql),
        Migration(18, "dashboard_sessions", PackageResources._018_dashboard_sessions_sql),
        Migration(19, "row_rules", PackageResources._019_row_rules_sql),
        Migration(20, "one_count_table", PackageResources._020_one_count_table_sql),
        Migration(21, "dashboard_keys", PackageResources._021_dashboard_keys_sql),
        Migration(22, "failure_code_spelling", PackageResources._022_failure_code_spelling_sql),
        Migration(23, "fail_job_decides", PackageResources._023_fail_job_decides_sql),
        Migration(24, "filters", PackageResources._024_filters_sql),
        Migration(25, "render_provenance", PackageResources._025_render_provenance_sql),
        Migration(26, "imported_layers", PackageResources._026_imported_layers_sql),
        Migration(27, "filter_upgrades", PackageResources._027_filter_upgrades_sql),
        Migration(28, "claims_name_the_release", PackageResources._028_claims_name_the_release_sql),
        Migration(29, "worker_memory", PackageResources._029_worker_memory_sql),
        Migration(30, "serve_role", PackageResources._030_serve_role_sql),
        Migration(31, "renditions", PackageResources._031_renditions_sql),
        Migration(32, "library_counts", PackageResources._032_library_counts_sql),
        Migration(33, "creation_date_source", PackageResources._033_creation_date_source_sql),
    ]
}
