import DarkroomDatabase
import DarkroomTestSupport
import LibPQ
import Testing

/// What `darkroom migrate` grants (SQL/definitions/roles.sql), read from the catalog: the
/// roles it makes, and exactly which functions and relations each may use.
@Suite("Access roles")
struct AccessRoleTests {
    /// Every darkroom function `role` may execute, by name.
    func executable(by role: String, on connection: DatabaseConnection) throws -> Set<String> {
        Set(
            try connection.query(
                """
                SELECT p.proname AS name FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace
                 WHERE n.nspname = 'darkroom' AND has_function_privilege($1, p.oid, 'EXECUTE')
                """, [.text(role)]
            ).map { try $0["name"].decode(String.self) })
    }

    /// Every darkroom table or view `role` may use in any way, with the privileges it has.
    func usable(by role: String, on connection: DatabaseConnection) throws -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: try connection.query(
                """
                SELECT c.relname AS name, concat_ws(',',
                       CASE WHEN has_table_privilege($1, c.oid, 'SELECT') THEN 'SELECT' END,
                       CASE WHEN has_table_privilege($1, c.oid, 'INSERT') THEN 'INSERT' END,
                       CASE WHEN has_table_privilege($1, c.oid, 'UPDATE') THEN 'UPDATE' END,
                       CASE WHEN has_table_privilege($1, c.oid, 'DELETE') THEN 'DELETE' END,
                       CASE WHEN has_table_privilege($1, c.oid, 'TRUNCATE,REFERENCES,TRIGGER') THEN 'OTHER' END) AS privileges
                  FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
                 WHERE n.nspname = 'darkroom' AND c.relkind IN ('r', 'v', 'm', 'S')
                """, [.text(role)]
            ).compactMap { row -> (String, String)? in
                let privileges = try row["privileges"].decode(String.self)
                return privileges.isEmpty ? nil : (try row["name"].decode(String.self), privileges)
            })
    }

    func views(on connection: DatabaseConnection) throws -> Set<String> {
        Set(
            try connection.query(
                """
                SELECT c.relname AS name FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
                 WHERE n.nspname = 'darkroom' AND c.relkind = 'v'
                """
            ).map { try $0["name"].decode(String.self) })
    }

    @Test func migrateCreatesFourGroupRolesAndRemembersThem() throws {
        try withQueueDatabase { url, connection in
            let roles = TestDatabase.accessRoles(forDatabaseAt: url)
            let recorded = try AccessRoles.recorded(on: connection)
            #expect(recorded.map(\.kind) == [.viewer, .operator, .worker, .serve])
            #expect(
                recorded.map(\.name) == [roles.viewer, roles.operatorRole, roles.worker, roles.serve].compactMap { $0 })
            for role in recorded {
                let row = try connection.query(
                    "SELECT rolcanlogin, rolsuper, rolinherit FROM pg_roles WHERE rolname = $1", [.text(role.name)])
                #expect(
                    try row.first?["rolcanlogin"].decode(Bool.self) == false, "\(role.name) is a group, not a login")
                #expect(try row.first?["rolsuper"].decode(Bool.self) == false)
            }
            // A later migrate without names keeps granting to the same roles.
            try Migrator().migrate(on: connection, logger: .quiet)
            #expect(try AccessRoles.recorded(on: connection).map(\.name) == recorded.map(\.name))
            #expect(try executable(by: recorded[1].name, on: connection).contains("enqueue_edit"))
        }
    }

    @Test func publicMayDoNothingInTheSchema() throws {
        try withQueueDatabase { _, connection in
            #expect(
                try scalar(
                    connection,
                    """
                    SELECT count(*) FROM pg_namespace WHERE nspname = 'darkroom'
                       AND EXISTS (SELECT 1 FROM aclexplode(nspacl) AS a WHERE a.grantee = 0)
                    """
                ).int == 0)
            // A NULL ACL means the default, which lets PUBLIC execute a function.
            let open = try connection.query(
                """
                SELECT p.proname AS name FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace
                 WHERE n.nspname = 'darkroom'
                   AND (p.proacl IS NULL OR EXISTS (SELECT 1 FROM aclexplode(p.proacl) AS a WHERE a.grantee = 0))
                """
            ).map { try $0["name"].decode(String.self) }
            #expect(open.isEmpty, "PUBLIC may execute \(open)")
            #expect(
                try scalar(
                    connection,
                    """
                    SELECT count(*) FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
                     WHERE n.nspname = 'darkroom' AND EXISTS (SELECT 1 FROM aclexplode(c.relacl) AS a WHERE a.grantee = 0)
                    """
                ).int == 0)
        }
    }

    /// The whole matrix: a privilege added or lost anywhere fails here.
    @Test func eachRoleMayUseExactlyItsPart() throws {
        try withQueueDatabase { url, connection in
            let roles = TestDatabase.accessRoles(forDatabaseAt: url)
            let (viewer, operatorRole, worker) = (roles.viewer!, roles.operatorRole!, roles.worker!)
            let allViews = try views(on: connection)
            #expect(
                allViews.isSuperset(of: [
                    "queue_summary", "batch_summary", "recent_failures", "failures", "worker_status",
                    "waiting_for_editor", "oldest_queued", "audit_trail",
                ]))
            let readViews = Dictionary(uniqueKeysWithValues: allViews.map { ($0, "SELECT") })

            #expect(try usable(by: viewer, on: connection) == readViews)
            let serve: Set<String> = [
                "save_session", "load_session", "end_session", "sign_in_wait", "record_sign_in",
                "forget_expired_sessions",
                "dashboard_key",
            ]
            // What the asset_jobs view computes its can_cancel and can_retry with.
            let jobActions: Set<String> = ["job_can_be_cancelled", "job_can_be_retried"]
            #expect(
                try executable(by: viewer, on: connection)
                    == Set(["waiting_for_editor_rows", "asset_chain", "stale_count"]).union(jobActions))
            // The dashboard's sessions, throttle and keys: serve's role alone, which reads nothing.
            #expect(try executable(by: roles.serve!, on: connection) == serve)
            #expect(try usable(by: roles.serve!, on: connection).isEmpty)

            #expect(try usable(by: operatorRole, on: connection) == readViews)
            #expect(
                try executable(by: operatorRole, on: connection)
                    == Set<String>([
                        "waiting_for_editor_rows", "asset_chain", "enqueue_edit", "enqueue_edits", "enqueue_revert",
                        "enqueue_rerender", "add_filter", "filter_rerender_counts", "enqueue_filter_rerender",
                        "add_rendition", "remove_rendition",
                        "stale_counts", "enqueue_stale_rerender", "stale_count",
                        "cancel_job", "cancel_batch", "retry_job", "retry_batch",
                    ]).union(jobActions))

            #expect(
                try usable(by: worker, on: connection) == [
                    "assets": "SELECT", "adjustments": "SELECT",
                    "asset_records": "SELECT", "adjustment_records": "SELECT", "current_renditions": "SELECT",
                    "adjustment_rendition_files": "SELECT",
                ])
            #expect(
                try executable(by: worker, on: connection) == [
                    "claim_jobs", "lease_problem", "leases_have_expired", "rescue_expired_leases", "heartbeat",
                    "worker_stopped",
                    "complete_job", "complete_renditions_job", "missing_renditions", "renditions_missing",
                    "written_renditions",
                    "fail_job", "release_job",
                    "completed_under_lease", "register_asset",
                    "record_imported_layer", "upgrade_filter_data",
                    "asset_chain", "current_chains", "rerender_scope", "semver_sort_key", "semver_prerelease_key",
                ])
            for role in [viewer, operatorRole, worker] {
                #expect(
                    try scalar(connection, "SELECT has_schema_privilege($1, 'darkroom', 'USAGE')", [.text(role)]).bool
                        == true)
                #expect(
                    try scalar(connection, "SELECT has_schema_privilege($1, 'darkroom', 'CREATE')", [.text(role)]).bool
                        == false)
            }
        }
    }

    @Test func renamingARoleTakesEverythingFromTheOldOne() throws {
        try withQueueDatabase { url, connection in
            let old = try #require(TestDatabase.accessRoles(forDatabaseAt: url).viewer)
            let renamed = TestDatabase.roleName("watcher", forDatabaseAt: url)
            try Migrator(roles: AccessRoles(viewer: renamed)).migrate(on: connection, logger: .quiet)
            #expect(try AccessRoles.recorded(on: connection).first?.name == renamed)
            #expect(try usable(by: old, on: connection).isEmpty)
            #expect(try executable(by: old, on: connection).isEmpty)
            #expect(
                try scalar(connection, "SELECT has_schema_privilege($1, 'darkroom', 'USAGE')", [.text(old)]).bool
                    == false)
            #expect(try usable(by: renamed, on: connection)["queue_summary"] == "SELECT")
        }
    }

    @Test(arguments: [
        (AccessRoles(viewer: "pg_darkroom"), SQLState.invalidParameterValue),
        (AccessRoles(viewer: ""), .invalidParameterValue),
        (AccessRoles(viewer: String(repeating: "v", count: 64)), .invalidParameterValue),
        (AccessRoles(viewer: "darkroom"), .invalidParameterValue),  // the test server's superuser, which migrates
    ])
    func unusableRoleNamesAreRefusedAndNothingIsApplied(roles: AccessRoles, sqlState: SQLState) throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try DatabaseConnection(url)
            let error = #expect(throws: QueueError.self) {
                try Migrator(roles: roles).migrate(on: connection, logger: .quiet)
            }
            guard let error, error.code == .roleNamesRefused, let underlying = error.cause else {
                Issue.record("expected roleNamesRefused with the server's error, got \(String(describing: error))")
                return
            }
            #expect(underlying.sqlState == sqlState.rawValue)
            #expect(try Migrator().appliedVersions(on: connection) == [])
        }
    }

    @Test func theSameRoleCannotPlayTwoParts() throws {
        try TestDatabase.withFreshDatabase { url in
            let shared = TestDatabase.roleName("everyone", forDatabaseAt: url)
            let error = #expect(throws: QueueError.self) {
                try Migrator(roles: AccessRoles(viewer: shared, operator: shared)).migrate(
                    on: try DatabaseConnection(url), logger: .quiet)
            }
            #expect(error?.description.contains("four different roles") == true)
        }
    }
}
