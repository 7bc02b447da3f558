import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// Sessions of people and processes logged in as members of the three roles, doing what they
/// may and trying what they may not, against the real server.
@Suite("Role sessions")
struct RoleSessionTests {
    struct Sessions {
        let url: String
        let owner: DatabaseConnection
        /// Login names: alice (operator), victor (viewer), walter (worker).
        let alice: String, victor: String, walter: String
        let operatorSession: DatabaseConnection, viewerSession: DatabaseConnection, workerSession: DatabaseConnection
    }

    /// A migrated database with one login per role, each with its own connection.
    func withSessions(_ body: (Sessions) throws -> Void) throws {
        try withQueueDatabase { url, owner in
            let roles = TestDatabase.accessRoles(forDatabaseAt: url)
            var logins: [String] = []
            for (login, group) in [
                ("alice", roles.operatorRole!), ("victor", roles.viewer!), ("walter", roles.worker!),
            ] {
                let name = TestDatabase.roleName(login, forDatabaseAt: url)
                try owner.execute(
                    "CREATE ROLE \(try owner.quotedIdentifier(name)) LOGIN IN ROLE \(try owner.quotedIdentifier(group))"
                )
                logins.append(name)
            }
            let connect = { (login: String) in try DatabaseConnection(try TestDatabase.url(url, as: login)) }
            try body(
                Sessions(
                    url: url, owner: owner, alice: logins[0], victor: logins[1], walter: logins[2],
                    operatorSession: try connect(logins[0]), viewerSession: try connect(logins[1]),
                    workerSession: try connect(logins[2])))
        }
    }

    /// The SQLSTATE `body` failed with (42501 is "insufficient privilege").
    func refusal(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as DatabaseError {
            return error.sqlState
        } catch {
            return "\(error)"
        }
    }

    @Test func anOperatorCannotWriteTablesNamePathsOrReadOtherSchemas() throws {
        try withSessions { s in
            let asset = try registerAsset(1, on: s.owner)
            let job = try JobQueue(s.owner, logger: .quiet).enqueueSample(assetID: asset)
            try s.owner.execute(
                "CREATE TABLE public.secrets (word text); INSERT INTO public.secrets VALUES ('swordfish')")
            let o = s.operatorSession
            #expect(
                refusal {
                    _ = try o.query(
                        """
                        INSERT INTO darkroom.assets (original_path, content_sha256, byte_size, pixel_width, pixel_height)
                        VALUES ('originals/x.jpg', repeat('a', 64), 1, 1, 1)
                        """)
                } == "42501")
            #expect(
                refusal { _ = try o.query("UPDATE darkroom.adjustments SET rendered_path = 'renders/x.jpg'") }
                    == "42501")
            #expect(
                refusal { _ = try o.query("UPDATE darkroom.jobs SET priority = 1000 WHERE id = $1", [.int(job)]) }
                    == "42501")
            #expect(
                refusal {
                    _ = try o.query(
                        "INSERT INTO darkroom.audit_log (database_user, action, arguments, result) VALUES ('x', 'y', '{}', '{}')"
                    )
                } == "42501")
            #expect(refusal { _ = try o.query("SELECT * FROM darkroom.jobs") } == "42501")
            #expect(refusal { _ = try o.query("SELECT * FROM darkroom.settings") } == "42501")
            #expect(refusal { _ = try o.query("SELECT * FROM public.secrets") } == "42501")
            #expect(refusal { _ = try o.query("SELECT rolname, rolpassword FROM pg_authid") } == "42501")
            // No operator function takes a path; the ones that do are the worker's.
            #expect(refusal { _ = try AssetStore(o).register(sampleAsset(2, path: "/etc/passwd")) } == "42501")
            #expect(refusal { _ = try o.query("SELECT darkroom.prune_jobs()") } == "42501")
            #expect(refusal { _ = try o.query("SELECT * FROM darkroom.claim_jobs('me', 1, 60)") } == "42501")
            #expect(refusal { _ = try o.query("SELECT * FROM darkroom.grant_access()") } == "42501")
            #expect(try scalar(s.owner, "SELECT count(*) FROM darkroom.assets").int == 1)
        }
    }

    @Test func anOperatorActsThroughTheAPIAndEveryActionIsAudited() throws {
        try withSessions { s in
            let asset = try registerAsset(1, on: s.owner)
            let other = try registerAsset(2, on: s.owner)
            let started = try scalar(s.owner, "SELECT now()").decode(Date.self)
            let queue = JobQueue(s.operatorSession, logger: .quiet)
            let trail = AuditTrail(s.operatorSession)

            let edit = try trail.acting(as: "alice@dashboard") {
                try queue.enqueue(
                    assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0",
                    data: sampleData, batch: "spring")
            }
            #expect(try queue.cancel(jobID: edit))
            #expect(try queue.retry(jobID: edit))
            #expect(!(try queue.retry(jobID: edit)), "a queued job is not retried, and the call is still recorded")
            let bulk = try s.operatorSession.query(
                """
                SELECT count(*) AS n FROM darkroom.enqueue_edits(ARRAY[$1, $2]::bigint[], 'io.darkroom.pipeline', '1.0', '{}'::jsonb, batch => 'bulk')
                """, [.int(asset), .int(other)])
            #expect(try bulk[0]["n"].decode(Int.self) == 2)
            #expect(try scalar(s.operatorSession, "SELECT darkroom.cancel_batch('bulk')").int == 2)
            #expect(
                try scalar(s.operatorSession, "SELECT darkroom.retry_batch('bulk', include_cancelled => true)").int == 2
            )
            let revert = try queue.enqueueRevert(assetID: asset)
            #expect(try queue.enqueueRerender(formatIdentifier: "io.darkroom.pipeline") == 0)

            let entries = try AuditTrail(s.owner).recent(limit: 100).reversed().map { $0 }
            #expect(
                entries.map(\.action) == [
                    "enqueue_edit", "cancel_job", "retry_job", "retry_job", "enqueue_edits", "cancel_batch",
                    "retry_batch", "enqueue_revert", "enqueue_rerender",
                ])
            #expect(
                entries.allSatisfy {
                    $0.databaseUser == s.alice && $0.at >= started && $0.at <= Date().addingTimeInterval(5)
                })
            #expect(
                entries.map(\.actor) == ["alice@dashboard"] + Array(repeating: nil, count: 8),
                "the actor lasts one transaction")
            #expect(
                entries[0].arguments.contains(#""asset_id": \#(asset)"#)
                    && entries[0].arguments.contains(#""batch": "spring""#))
            #expect(entries[0].arguments.contains(#""data_bytes": \#(sampleData.count)"#))
            #expect(entries[0].result == #"{"job_id": \#(edit)}"#)
            #expect(entries[1].result == #"{"cancelled": true, "state_before": "queued"}"#)
            #expect(entries[3].result == #"{"retried": false, "state_before": "queued"}"#)
            #expect(entries[6].result == #"{"retried": 2}"#)
            #expect(entries[7].result == #"{"job_id": \#(revert)}"#)
            #expect(
                try AuditTrail(s.viewerSession).recent(limit: 1, action: "enqueue_edit").first?.actor
                    == "alice@dashboard")
            #expect(try trail.recent(actor: "alice@dashboard").count == 1)
        }
    }

    @Test func aRefusedActionLeavesNoAuditRowAndABadActorIsRefused() throws {
        try withSessions { s in
            let queue = JobQueue(s.operatorSession, logger: .quiet)
            #expect(throws: QueueError.self) { try queue.enqueueSample(assetID: 31_337) }
            #expect(throws: QueueError.self) { try queue.retry(jobID: 31_337) }
            let asset = try registerAsset(1, on: s.owner)
            let badActor = #expect(throws: QueueError.self) {
                try AuditTrail(s.operatorSession).acting(as: "alice\nbob") { try queue.enqueueSample(assetID: asset) }
            }
            #expect(badActor?.description.contains("darkroom.actor setting") == true)
            #expect(try scalar(s.owner, "SELECT count(*) FROM darkroom.audit_log").int == 0)
            #expect(try scalar(s.owner, "SELECT count(*) FROM darkroom.jobs").int == 0)
            #expect(refusal { _ = try s.owner.query("DELETE FROM darkroom.audit_log") } == nil, "nothing to delete yet")
            _ = try queue.enqueueSample(assetID: asset)
            #expect(refusal { _ = try s.owner.query("UPDATE darkroom.audit_log SET actor = 'mallory'") } == "23001")
            #expect(refusal { _ = try s.owner.query("DELETE FROM darkroom.audit_log") } == "23001")
        }
    }

    /// The API functions fix their search_path: objects the caller puts first (a temporary
    /// table named like darkroom's, a function shadowing a built-in) change nothing.
    @Test func whatTheCallerPutsOnItsSearchPathChangesNothing() throws {
        try withSessions { s in
            let asset = try registerAsset(1, on: s.owner)
            let roles = TestDatabase.accessRoles(forDatabaseAt: s.url)
            try s.owner.execute(
                """
                CREATE SCHEMA shadow;
                CREATE FUNCTION shadow.octet_length(bytea) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT 0';
                CREATE FUNCTION shadow.sha256(bytea) RETURNS bytea LANGUAGE sql IMMUTABLE AS 'SELECT ''\\x00''::bytea';
                GRANT USAGE ON SCHEMA shadow TO \(try s.owner.quotedIdentifier(roles.operatorRole!));
                """)
            let o = s.operatorSession
            try o.execute(
                "SET search_path = shadow, pg_temp, pg_catalog; CREATE TEMP TABLE jobs (id bigint); CREATE TEMP TABLE audit_log (id bigint)"
            )
            #expect(
                try scalar(o, "SELECT octet_length('\\x0102'::bytea)").int == 0,
                "the shadow works for the caller itself")
            let oversize = #expect(throws: QueueError.self) {
                try JobQueue(o, logger: .quiet).enqueue(
                    assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0",
                    data: [UInt8](repeating: 1, count: 1_048_577))
            }
            #expect(oversize?.description.contains("1048577 bytes") == true)
            let job = try JobQueue(o, logger: .quiet).enqueueSample(assetID: asset)
            #expect(try scalar(s.owner, "SELECT count(*) FROM darkroom.jobs WHERE id = $1", [.int(job)]).int == 1)
            #expect(try scalar(o, "SELECT count(*) FROM pg_temp.jobs").int == 0)
            let audited = try #require(try AuditTrail(s.owner).recent(limit: 1).first)
            let digest = try scalar(s.owner, "SELECT encode(sha256($1), 'hex')", [.bytes(sampleData)]).decode(
                String.self)
            #expect(audited.arguments.contains(#""data_sha256": "\#(digest)""#))
        }
    }

    @Test func aViewerReadsEveryViewAndNothingElse() throws {
        try withSessions { s in
            let asset = try registerAsset(1, on: s.owner)
            _ = try JobQueue(s.owner, logger: .quiet).enqueue(
                assetID: asset, formatIdentifier: "io.darkroom.pipeline",
                formatVersion: "1.0", data: sampleData, batch: "spring")
            let v = s.viewerSession
            let views = try s.owner.query(
                """
                SELECT c.relname AS name FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
                 WHERE n.nspname = 'darkroom' AND c.relkind = 'v'
                """
            ).map { try $0["name"].decode(String.self) }
            for view in views {
                #expect(
                    refusal { _ = try v.query("SELECT * FROM darkroom.\(try v.quotedIdentifier(view)) LIMIT 1") }
                        == nil, "\(view)")
            }
            let status = try JobQueue(v, logger: .quiet).status(recentFailures: 5)
            #expect(status.countsByState[.queued] == 1 && status.oldestQueued != nil)
            #expect(try JobQueue(v, logger: .quiet).progress(ofBatch: "spring")?.queued == 1)
            #expect(try scalar(v, "SELECT jobs FROM darkroom.waiting_for_editor").int == 1)

            #expect(refusal { _ = try JobQueue(v, logger: .quiet).enqueueSample(assetID: asset) } == "42501")
            #expect(refusal { _ = try JobQueue(v, logger: .quiet).cancel(jobID: 1) } == "42501")
            #expect(refusal { _ = try v.query("SELECT darkroom.enqueue_revert($1)", [.int(asset)]) } == "42501")
            for table in ["jobs", "assets", "adjustments", "asset_history", "audit_log", "workers", "settings"] {
                #expect(refusal { _ = try v.query("SELECT * FROM darkroom.\(table) LIMIT 1") } == "42501", "\(table)")
            }
        }
    }
}
