/// One numbered schema change. Its SQL runs once, inside the migrator's transaction; it is also
/// written to be safe to run again (`IF NOT EXISTS`, `CREATE OR REPLACE`).
public struct Migration: Sendable, Hashable {
    public let version: Int
    public let name: String
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// darkroom's schema, oldest first. Append new migrations; never edit an applied one.
    public static let darkroom: [Migration] = [.initial, .triggers, .operatorAPI, .queueSchema, .leases, .operatorBatches, .jobsSupport, .editingModel, .fastValidators]
}
