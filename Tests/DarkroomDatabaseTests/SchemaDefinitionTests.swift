import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// SQL is code: tables change through migrations, everything else is the current text of
/// one file in SQL/definitions, and both halves of a shared rule pass the same vectors.
@Suite("Schema definitions")
struct SchemaDefinitionTests {
    static let sqlFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/DarkroomDatabase/SQL")

    @Test func theSQLVersionRulePassesTheSharedVectors() throws {
        let vectors = try SemverVectors.load()
        try withQueueDatabase { _, connection in
            var keys: [[String]] = []
            for versions in vectors.classes {
                keys.append(
                    try versions.map { version in
                        let row = try connection.query(
                            "SELECT darkroom.semver_problem($1) AS problem, darkroom.semver_sort_key($1) AS key",
                            [.text(version)])[0]
                        #expect(try row["problem"].decode(String?.self) == nil, "\(version) is valid")
                        return try row["key"].decode(String.self)
                    })
            }
            for (lower, higher) in zip(zip(vectors.classes, keys), zip(vectors.classes, keys).dropFirst()) {
                for (lowVersion, lowKey) in zip(lower.0, lower.1) {
                    for (highVersion, highKey) in zip(higher.0, higher.1) {
                        // Byte order, as the generated column's COLLATE "C" compares them.
                        #expect(
                            Array(lowKey.utf8).lexicographicallyPrecedes(highKey.utf8), "\(lowVersion) < \(highVersion)"
                        )
                    }
                }
            }
            for (versions, classKeys) in zip(vectors.classes, keys) {
                #expect(Set(classKeys).count == 1, "\(versions) have equal precedence")
            }
            for text in vectors.invalid {
                let problem = try connection.query("SELECT darkroom.semver_problem($1) AS problem", [.text(text)])[0][
                    "problem"]
                #expect(try problem.decode(String?.self) != nil, "\"\(text)\" is not a version")
            }
        }
    }

    @Test func theSQLStoredPathRulePassesTheSharedVectors() throws {
        let vectors = try StoredPathVectors.load()
        try withQueueDatabase { _, connection in
            for path in vectors.valid {
                let problem = try connection.query("SELECT darkroom.stored_path_problem($1) AS problem", [.text(path)])[
                    0]["problem"]
                #expect(try problem.decode(String?.self) == nil, "\(path) is a valid stored path")
            }
            for path in vectors.refused {
                let problem = try connection.query("SELECT darkroom.stored_path_problem($1) AS problem", [.text(path)])[
                    0]["problem"]
                #expect(try problem.decode(String?.self) != nil, "\"\(path)\" is refused")
            }
        }
    }

    /// The defect that made these vectors: a worker writing 1.1.0-beta.2 must not claim a
    /// re-render that asks for 1.1.0-beta.3.
    @Test func aPreReleaseWorkerDoesNotClaimARerenderForALaterPreRelease() throws {
        try withQueueDatabase { _, connection in
            let asset = try registerAsset(1, on: connection)
            _ = try connection.query(
                """
                INSERT INTO darkroom.jobs (asset_id, kind, format_identifier, format_version) VALUES ($1, 'rerender', 'io.darkroom.pipeline', '1.1.0-beta.3')
                """, [.int(asset)])
            let queue = JobQueue(connection, logger: .quiet)
            let beta2 = [
                ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "0.0.0-0", maxVersion: "1.1.0-beta.2")
            ]
            #expect(try queue.claim(workerID: "beta2", limit: 1, lease: .seconds(60), formats: beta2).isEmpty)
            let beta11 = [
                ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "0.0.0-0", maxVersion: "1.1.0-beta.11")
            ]
            #expect(try queue.claim(workerID: "beta11", limit: 1, lease: .seconds(60), formats: beta11).count == 1)
        }
    }

    /// Migrations 1–9 were squashed once into table-only files when their functions moved to
    /// SQL/definitions. A database the old release migrated, upgraded now, must have exactly
    /// the schema a fresh install has.
    @Test func anUpgradedDatabaseEqualsAFreshOne() throws {
        try TestDatabase.withFreshDatabase { fresh in
            // Both grant to the same roles, so their dumps name the same grantees.
            let migrator = Migrator.forTestDatabase(fresh)
            try migrator.migrate(on: try DatabaseConnection(fresh), logger: .quiet)
            try TestDatabase.withFreshDatabase { upgraded in
                try run(
                    "psql",
                    [
                        "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", upgraded,
                        "-f", Fixtures.root.appendingPathComponent("schema/migrations-1-9.sql").path,
                    ])
                let applied = try migrator.migrate(on: try DatabaseConnection(upgraded), logger: .quiet)
                #expect(applied == Migration.darkroom.map(\.version).filter { $0 >= 10 })
                let freshSchema = try schemaDump(fresh)
                let upgradedSchema = try schemaDump(upgraded)
                #expect(freshSchema.count > 500)
                let difference = zip(freshSchema, upgradedSchema).enumerated().first { $0.element.0 != $0.element.1 }
                #expect(
                    freshSchema == upgradedSchema,
                    "first difference at line \(difference?.offset ?? min(freshSchema.count, upgradedSchema.count)): \(String(describing: difference?.element))"
                )
            }
        }
    }

    /// Every function and view in the schema comes from a definitions file, and every file
    /// on disk is applied: nothing stale lingers, nothing is forgotten.
    @Test func theSchemaHoldsExactlyWhatTheDefinitionFilesDefine() throws {
        let folder = Self.sqlFolder.appendingPathComponent("definitions")
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }
            .sorted()
        #expect(
            onDisk == SchemaDefinition.all.map(\.file).sorted(), "SchemaDefinition lists every file in SQL/definitions")

        var defined = Set<String>()
        let pattern = try Regex(#"CREATE OR REPLACE (?:FUNCTION|VIEW) darkroom\.([a-z_]+)"#)
        for definition in SchemaDefinition.all {
            for match in definition.sql.matches(of: pattern) {
                defined.insert(String(match.output[1].substring ?? ""))
            }
        }
        try withQueueDatabase { _, connection in
            let inSchema = Set(
                try connection.query(
                    """
                    SELECT p.proname AS name FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace WHERE n.nspname = 'darkroom'
                    UNION
                    SELECT c.relname FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
                     WHERE n.nspname = 'darkroom' AND c.relkind = 'v'
                    """
                ).map { try $0["name"].decode(String.self) })
            #expect(
                inSchema == defined,
                "only in the schema: \(inSchema.subtracting(defined)); only in files: \(defined.subtracting(inSchema))")
        }
        // No migration defines code any more.
        for migration in Migration.darkroom where migration.version >= 1 {
            #expect(
                !migration.sql.contains("CREATE OR REPLACE FUNCTION") && !migration.sql.contains("CREATE VIEW")
                    && !migration.sql.contains("CREATE OR REPLACE VIEW"), "migration \(migration.version) defines code")
        }
    }

    private func schemaDump(_ url: String) throws -> [Substring] {
        // pg_dump 15.14+ brackets its output with a random \restrict key.
        try run("pg_dump", ["--schema-only", "--schema=darkroom", url])
            .split(separator: "\n").filter { !$0.hasPrefix("\\restrict") && !$0.hasPrefix("\\unrestrict") }
    }

    @discardableResult
    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let reader = PipeReader(output.fileHandleForReading.fileDescriptor)
        let errorReader = PipeReader(errors.fileHandleForReading.fileDescriptor)
        process.waitUntilExit()
        let text = String(decoding: reader.result(), as: UTF8.self)
        let errorText = String(decoding: errorReader.result(), as: UTF8.self)
        try #require(process.terminationStatus == 0, "\(tool) failed (\(process.terminationStatus)): \(errorText)")
        return text
    }
}
