internal import LibPQ

/// Failures of queue and asset operations that callers are expected to handle: a stable code,
/// a message that says what to do, the job, asset or schema file concerned, and the server's
/// error underneath when there is one. Database failures that are not specific to darkroom
/// arrive as `DatabaseError` instead.
public struct QueueError: Error, Sendable, CustomStringConvertible {
    /// Stable: callers decide on it (a lost lease on `leaseLoss` too), never on the message.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The worker no longer holds this job (its lease expired, it was cancelled, or another
        /// worker took it over), so nothing was written; `leaseLoss` says which.
        case leaseLost = "lease_lost"
        case assetNotFound = "asset_not_found"
        /// The asset's current adjustment changed while a job worked on it; nothing was written
        /// and the job should run again. Recorded on the job as the worker's `asset_changed`.
        case assetChanged = "asset_changed"
        case jobNotFound = "job_not_found"
        /// `darkroom.enqueue_edit` (or another function of the SQL API) refused the job.
        case invalidJob = "invalid_job"
        /// A constraint of `darkroom.assets` refused the asset; `constraint` names it.
        case invalidAsset = "invalid_asset"
        /// Nothing was applied: the migrations run in one transaction.
        case migrationFailed = "migration_failed"
        /// A file of `SQL/definitions` failed; nothing was applied.
        case definitionFailed = "definition_failed"
        /// `darkroom.grant_access` refused the role names (reserved, empty, too long, the
        /// migrating role's own, or one role for two parts); nothing was applied.
        case roleNamesRefused = "role_names_refused"
        /// `darkroom.grant_access` could not create or grant to a role (the migrating role lacks
        /// CREATEROLE); nothing was applied.
        case grantsFailed = "grants_failed"
    }

    public var code: Code
    /// What happened and what to do about it.
    public var message: String
    public var jobID: Int64?
    public var assetID: Int64?
    /// Why the lease is gone, for `.leaseLost`.
    public var leaseLoss: LeaseLoss?
    /// For `.assetChanged`: the adjustment the job started from and the one the asset shows
    /// now (`nil`: the original).
    public var expectedAdjustmentID: Int64?
    public var foundAdjustmentID: Int64?
    /// The asset's path (or a layer's rendered path) a constraint refused, for `.invalidAsset`.
    public var object: String?
    /// The constraint, or the SQL function, that refused it.
    public var constraint: String?
    /// The migration that failed, for `.migrationFailed`.
    public var migrationVersion: Int?
    public var migrationName: String?
    /// The file of `SQL/definitions` that failed, for `.definitionFailed`.
    public var definitionFile: String?
    /// The server's error, when the database refused.
    public var cause: DatabaseError?

    public init(
        code: Code, message: String, jobID: Int64? = nil, assetID: Int64? = nil, leaseLoss: LeaseLoss? = nil,
        expectedAdjustmentID: Int64? = nil, foundAdjustmentID: Int64? = nil, object: String? = nil,
        constraint: String? = nil, migrationVersion: Int? = nil, migrationName: String? = nil,
        definitionFile: String? = nil, cause: DatabaseError? = nil
    ) {
        (self.code, self.message, self.jobID, self.assetID, self.leaseLoss) = (code, message, jobID, assetID, leaseLoss)
        (self.expectedAdjustmentID, self.foundAdjustmentID) = (expectedAdjustmentID, foundAdjustmentID)
        (self.object, self.constraint) = (object, constraint)
        (self.migrationVersion, self.migrationName, self.definitionFile) = (
            migrationVersion, migrationName, definitionFile
        )
        self.cause = cause
    }

    public var description: String { message }
}

/// One constructor per code, each writing the message that says what to do.
extension QueueError {
    public static func leaseLost(jobID: Int64, reason: LeaseLoss) -> QueueError {
        QueueError(
            code: .leaseLost,
            message: "job \(jobID) is no longer leased to this worker (\(reason)); its result was discarded. "
                + "Extend leases well before they expire; a cancelled or taken-over job needs no action.",
            jobID: jobID, leaseLoss: reason)
    }

    public static func assetNotFound(_ assetID: Int64) -> QueueError {
        QueueError(
            code: .assetNotFound,
            message:
                "asset \(assetID) does not exist; register the photo first and use the id that registration returns",
            assetID: assetID)
    }

    public static func assetChanged(assetID: Int64, expected: Int64?, found: Int64?) -> QueueError {
        let describe = { (id: Int64?) in id.map { "adjustment \($0)" } ?? "the original" }
        return QueueError(
            code: .assetChanged,
            message:
                "asset \(assetID) now shows \(describe(found)), not \(describe(expected)) as when the job started; "
                + "nothing was recorded and the job will run again on what the asset shows now",
            assetID: assetID, expectedAdjustmentID: expected, foundAdjustmentID: found)
    }

    public static func jobNotFound(_ jobID: Int64) -> QueueError {
        QueueError(
            code: .jobNotFound,
            message: "job \(jobID) does not exist; list jobs with `SELECT * FROM darkroom.jobs` "
                + "or see darkroom.queue_summary",
            jobID: jobID)
    }

    /// `problem` names what is wrong; `hint` (the server's, when it refused) says what to do.
    public static func invalidJob(
        _ problem: String, hint: String?, assetID: Int64? = nil, cause: DatabaseError? = nil
    ) -> QueueError {
        QueueError(
            code: .invalidJob, message: "the job was refused: \(problem)" + (hint.map { "; \($0)" } ?? ""),
            assetID: assetID, cause: cause)
    }

    public static func invalidAsset(path: String, constraint: String, cause: DatabaseError) -> QueueError {
        QueueError(
            code: .invalidAsset,
            message: "the asset \(path) was refused by \(constraint): \(cause.message); "
                + "fix the value the importer computed",
            object: path, constraint: constraint, cause: cause)
    }

    public static func migrationFailed(version: Int, name: String, cause: DatabaseError) -> QueueError {
        QueueError(
            code: .migrationFailed,
            message: "schema migration \(version) (\(name)) failed, so none were applied: \(cause)",
            migrationVersion: version, migrationName: name, cause: cause)
    }

    public static func definitionFailed(file: String, cause: DatabaseError) -> QueueError {
        QueueError(
            code: .definitionFailed, message: "the schema definition \(file) failed, so nothing was applied: \(cause)",
            definitionFile: file, cause: cause)
    }

    public static func grantsFailed(cause: DatabaseError) -> QueueError {
        QueueError(
            code: cause.postgres.sqlState == .invalidParameterValue ? .roleNamesRefused : .grantsFailed,
            message: "granting the viewer, operator and worker roles failed, so nothing was applied: \(cause)",
            cause: cause)
    }
}
