import LibPQ

/// Failures of queue and asset operations that callers are expected to handle.
/// Database failures that are not specific to darkroom arrive as `PostgresError` instead.
public enum QueueError: Error, Sendable, CustomStringConvertible {
    /// The worker no longer holds this job (its lease expired, it was cancelled, or another worker
    /// took it over), so nothing was written. Decide on `reason`, never on the message.
    case leaseLost(jobID: Int64, reason: LeaseLoss)
    case assetNotFound(Int64)
    /// The asset's current adjustment changed while a job worked on it (`nil`: the original);
    /// nothing was written and the job should run again.
    case assetChanged(assetID: Int64, expected: Int64?, found: Int64?)
    case jobNotFound(Int64)
    /// `darkroom.enqueue_edit` refused the job; `message` names the problem.
    case invalidJob(message: String, hint: String?)
    /// A constraint of `darkroom.assets` refused the asset.
    case invalidAsset(path: String, constraint: String, message: String)
    /// Nothing was applied: the migrations run in one transaction.
    case migrationFailed(version: Int, name: String, underlying: PostgresError)
    /// A file of `SQL/definitions` failed; nothing was applied.
    case definitionFailed(file: String, underlying: PostgresError)
    /// `darkroom.grant_access` refused the role names or could not create a role; nothing was applied.
    case grantsFailed(underlying: PostgresError)

    /// A stable identifier for logs and metrics.
    public var code: String {
        switch self {
        case .leaseLost: return "lease_lost"
        case .assetNotFound: return "asset_not_found"
        case .assetChanged: return "asset_changed"
        case .jobNotFound: return "job_not_found"
        case .invalidJob: return "invalid_job"
        case .invalidAsset: return "invalid_asset"
        case .migrationFailed: return "migration_failed"
        case .definitionFailed: return "definition_failed"
        case .grantsFailed: return "grants_failed"
        }
    }

    public var description: String {
        switch self {
        case .leaseLost(let jobID, let loss):
            return "job \(jobID) is no longer leased to this worker (\(loss)); its result was discarded. "
                + "Extend leases well before they expire; a cancelled or taken-over job needs no action."
        case .assetNotFound(let id):
            return "asset \(id) does not exist; register the photo first and use the id that registration returns"
        case .assetChanged(let assetID, let expected, let found):
            let describe = { (id: Int64?) in id.map { "adjustment \($0)" } ?? "the original" }
            return "asset \(assetID) now shows \(describe(found)), not \(describe(expected)) as when the job started; "
                + "nothing was recorded and the job will run again on what the asset shows now"
        case .jobNotFound(let id):
            return
                "job \(id) does not exist; list jobs with `SELECT * FROM darkroom.jobs` or see darkroom.queue_summary"
        case .invalidJob(let message, let hint):
            return "the job was refused: \(message)" + (hint.map { "; \($0)" } ?? "")
        case .invalidAsset(let path, let constraint, let message):
            return "the asset \(path) was refused by \(constraint): \(message); fix the value the importer computed"
        case .migrationFailed(let version, let name, let underlying):
            return "schema migration \(version) (\(name)) failed, so none were applied: \(underlying)"
        case .definitionFailed(let file, let underlying):
            return "the schema definition \(file) failed, so nothing was applied: \(underlying)"
        case .grantsFailed(let underlying):
            return "granting the viewer, operator and worker roles failed, so nothing was applied: \(underlying)"
        }
    }
}
