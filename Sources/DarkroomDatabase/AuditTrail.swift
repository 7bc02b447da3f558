import Foundation
internal import LibPQ

/// What was done through the operator API: each API function records its own action in
/// `darkroom.audit_log` (`SQL/definitions/audit.sql`), read here through the
/// `darkroom.audit_trail` view, which viewers and operators may read.
public struct AuditTrail {
    /// The setting the API functions read the acting person from.
    public static let actorSetting = "darkroom.actor"

    let connection: DatabaseConnection

    public init(_ connection: DatabaseConnection) {
        self.connection = connection
    }

    /// Runs `body` in one transaction in which every operator API call is recorded as done by
    /// `actor` (beside the database login, which is always recorded): e.g. the dashboard's
    /// signed-in account. The setting lasts only for that transaction, so it is safe through
    /// PgBouncer. The API refuses an actor over 200 characters or with control characters.
    public func acting<T>(as actor: String, _ body: () throws -> T) throws -> T {
        try connection.withTransaction {
            _ = try connection.query(.setAuditActor, [.text(Self.actorSetting), .text(actor)])
            return try body()
        }
    }

    /// The newest `limit` entries, newest first; only those of `action` and `actor` if given.
    public func recent(limit: Int = 50, action: String? = nil, actor: String? = nil) throws -> [AuditEntry] {
        try connection.query(
            .readAuditTrail,
            [.int(Int64(max(limit, 0))), .optional(action, PostgresBind.text), .optional(actor, PostgresBind.text)]
        ).map { row in
            AuditEntry(
                id: try row["id"].decode(Int64.self), at: try row["at"].decode(Date.self),
                databaseUser: try row["database_user"].decode(String.self),
                actor: try row["actor"].decode(String?.self),
                application: try row["application"].decode(String?.self), action: try row["action"].decode(String.self),
                arguments: try row["arguments"].decode(String.self), result: try row["result"].decode(String.self))
        }
    }
}

/// One action taken through the operator API.
public struct AuditEntry: Sendable, Hashable {
    public var id: Int64
    /// When the transaction that took the action began.
    public var at: Date
    /// The PostgreSQL login that acted (`session_user`; `SET ROLE` does not change it).
    public var databaseUser: String
    /// Who the application said acted (`AuditTrail.acting(as:)`), if it said.
    public var actor: String?
    /// The session's `application_name`, if set.
    public var application: String?
    /// The API function: `enqueue_edit`, `enqueue_edits`, `enqueue_revert`, `enqueue_rerender`,
    /// `cancel_job`, `cancel_batch`, `retry_job` or `retry_batch`.
    public var action: String
    /// A JSON object of what it was asked (adjustment data as `data_bytes` and `data_sha256`).
    public var arguments: String
    /// A JSON object of what came of it, e.g. `{"job_id": 17}` or `{"cancelled": 40}`.
    public var result: String
}
