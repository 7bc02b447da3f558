internal import LibPQ
import Logging

/// Brings the `darkroom` schema up to date: in one transaction holding an advisory lock, drops
/// the views, applies the definitions that constraints need, the pending migrations, every
/// other definition, then grants the viewer, operator and worker roles what `roles.sql` says.
/// Several processes starting at once apply each migration exactly once, and a failure leaves
/// nothing behind.
public struct Migrator: Sendable {
    /// `pg_advisory_xact_lock` key: the ASCII bytes of "darkroom".
    static let lockKey: Int64 = 0x6461_726B_726F_6F6D

    public let migrations: [Migration]

    public let definitionsBefore: [SchemaDefinition]
    public let definitionsAfter: [SchemaDefinition]
    public let roles: AccessRoles

    public init(
        migrations: [Migration] = Migration.darkroom,
        definitionsBefore: [SchemaDefinition] = SchemaDefinition.beforeMigrations,
        definitionsAfter: [SchemaDefinition] = SchemaDefinition.afterMigrations,
        roles: AccessRoles = .recordedOrDefault
    ) {
        precondition(
            zip(migrations, migrations.dropFirst()).allSatisfy { $0.version < $1.version },
            "migrations must be listed in strictly increasing version order")
        self.migrations = migrations
        self.definitionsBefore = definitionsBefore
        self.definitionsAfter = definitionsAfter
        self.roles = roles
    }

    /// Applies the migrations the database has not seen and returns their versions (empty when
    /// it was already up to date).
    @discardableResult
    public func migrate(on connection: DatabaseConnection, logger: Logger) throws -> [Int] {
        try connection.withTransaction {
            _ = try connection.query(.lockMigrations, [.int(Self.lockKey)])
            try connection.execute(.createMigrationsTable)
            let applied = Set(try appliedVersions(on: connection))
            if let newest = applied.max(), let known = migrations.last?.version, newest > known {
                logger.warning(
                    "the database has schema migrations newer than this build; upgrade darkroom",
                    metadata: [
                        "database_version": "\(newest)", "known_version": "\(known)",
                    ])
            }

            try connection.execute(SchemaDefinition.dropViews)
            try apply(definitionsBefore, on: connection)
            var newlyApplied: [Int] = []
            for migration in migrations where !applied.contains(migration.version) {
                logger.info(
                    "applying schema migration",
                    metadata: [
                        "version": "\(migration.version)", "name": "\(migration.name)",
                    ])
                do {
                    try connection.execute(Query(migration))
                } catch let error as DatabaseError {
                    throw QueueError.migrationFailed(version: migration.version, name: migration.name, cause: error)
                }
                _ = try connection.query(
                    .recordMigration,
                    [.int(Int64(migration.version)), .text(migration.name)])
                newlyApplied.append(migration.version)
            }
            try apply(definitionsAfter, on: connection)
            do {
                for role in try roles.grant(on: connection) where role.created {
                    logger.notice("created role", metadata: ["kind": "\(role.kind)", "role": "\(role.name)"])
                }
            } catch let error as DatabaseError {
                throw QueueError.grantsFailed(cause: error)
            }
            if newlyApplied.isEmpty {
                logger.debug("schema is up to date", metadata: ["version": "\(applied.max() ?? 0)"])
            }
            return newlyApplied
        }
    }

    private func apply(_ definitions: [SchemaDefinition], on connection: DatabaseConnection) throws {
        for definition in definitions {
            do {
                try connection.execute(Query(definition))
            } catch let error as DatabaseError {
                throw QueueError.definitionFailed(file: definition.file, cause: error)
            }
        }
    }

    /// Versions recorded in `darkroom.schema_migrations`, ascending (empty before the first run).
    public func appliedVersions(on connection: DatabaseConnection) throws -> [Int] {
        let exists = try connection.query(.migrationsTableExists)
        guard try exists[0]["exists"].decode(Bool.self) else { return [] }
        return try connection.query(.readAppliedMigrations).map { try $0["version"].decode(Int.self) }
    }
}
