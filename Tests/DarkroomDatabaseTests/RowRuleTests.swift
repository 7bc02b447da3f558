import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// The row rules of `row_rules.sql` (one CHECK per table since migration 19) refuse every row
/// the two dozen constraints before them refused, by hand as well as through the API, and say
/// which rule and why: the rule's name in the error's constraint field, the value in the message.
@Suite("Row rules of jobs, assets and adjustments")
struct RowRuleTests {
    /// A statement that breaks exactly one rule, the rule, and a piece of what the message says.
    struct Breach: CustomTestStringConvertible, Sendable {
        let sql: String
        let rule: String
        let says: String
        var testDescription: String { rule }
    }

    /// Each writes a job, asset or adjustment that is valid except for one thing; $1 is an asset,
    /// $2 a queued edit of it, $3 a succeeded edit with its adjustment.
    static let breaches: [Breach] = [
        Breach(
            sql: "UPDATE darkroom.jobs SET state = 'paused' WHERE id = $2", rule: "jobs_state_is_known",
            says: "'paused'"),
        Breach(
            sql: "INSERT INTO darkroom.jobs (asset_id, kind) VALUES ($1, 'undo')", rule: "jobs_kind_is_known",
            says: "'undo'"),
        Breach(
            sql:
                "INSERT INTO darkroom.jobs (asset_id, kind, format_identifier, format_version) VALUES ($1, 'edit', 'io.darkroom.pipeline', '1.0')",
            rule: "jobs_kind_shape", says: "a job of kind edit needs a format identifier, a format version and data"),
        Breach(
            sql: "INSERT INTO darkroom.jobs (asset_id, kind, data) VALUES ($1, 'revert', '\\x00')",
            rule: "jobs_kind_shape", says: "no format identifier"),
        Breach(
            sql: "UPDATE darkroom.jobs SET attempts = -1 WHERE id = $2", rule: "jobs_attempts_in_range",
            says: "attempts (-1)"),
        Breach(
            sql: "UPDATE darkroom.jobs SET max_attempts = 0 WHERE id = $2", rule: "jobs_attempts_in_range",
            says: "max_attempts (0)"),
        Breach(
            sql: "UPDATE darkroom.jobs SET errors = '{}' WHERE id = $2", rule: "jobs_errors_is_array",
            says: "errors must be a JSON array"),
        Breach(
            sql: "UPDATE darkroom.jobs SET warnings = '\"x\"' WHERE id = $2", rule: "jobs_warnings_is_array",
            says: "warnings must be a JSON array"),
        Breach(
            sql:
                "INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data) VALUES ($1, 'pipeline', '1.0', '\\x00')",
            rule: "jobs_format_identifier_is_reverse_dns", says: "at least two dot-separated labels"),
        Breach(
            sql:
                "INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data) VALUES ($1, 'io.darkroom.pipeline', 'v1', '\\x00')",
            rule: "jobs_format_version_is_semver", says: "starts with \"v\""),
        Breach(
            sql: "UPDATE darkroom.jobs SET format_version = '1.0.01' WHERE id = $2",
            rule: "jobs_format_version_is_semver", says: "leading zero"),
        Breach(
            sql: "UPDATE darkroom.jobs SET kind = 'revert' WHERE id = $2", rule: "jobs_kind_shape",
            says: "a job of kind revert needs no format"),
        Breach(
            sql:
                "INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data) VALUES ($1, 'io.darkroom.pipeline', '1.0', decode(repeat('00', 1048577), 'hex'))",
            rule: "jobs_data_at_most_1_mib", says: "1048577 bytes"),
        Breach(
            sql: "UPDATE darkroom.jobs SET state = 'running' WHERE id = $2", rule: "jobs_lease_only_while_running",
            says: "needs lease_token"),
        Breach(
            sql: "UPDATE darkroom.jobs SET lease_token = gen_random_uuid(), lease_expires_at = now() WHERE id = $2",
            rule: "jobs_lease_only_while_running", says: "a queued job has no lease_token"),
        Breach(
            sql: "UPDATE darkroom.jobs SET state = 'failed' WHERE id = $3", rule: "jobs_adjustment_only_when_succeeded",
            says: "a failed job"),
        Breach(
            sql: "UPDATE darkroom.jobs SET state = 'succeeded' WHERE id = $2",
            rule: "jobs_edit_succeeds_with_adjustment", says: "records its adjustment"),
        Breach(
            sql: "UPDATE darkroom.assets SET content_sha256 = repeat('A', 64) WHERE id = $1",
            rule: "assets_content_sha256_is_lowercase_hex", says: "64 lowercase hex digits"),
        Breach(
            sql: "UPDATE darkroom.assets SET byte_size = -1 WHERE id = $1", rule: "assets_byte_size_not_negative",
            says: "-1"),
        Breach(
            sql: "UPDATE darkroom.assets SET pixel_height = 0 WHERE id = $1", rule: "assets_pixel_size_positive",
            says: "× 0"),
        Breach(
            sql: "UPDATE darkroom.assets SET orientation = 9 WHERE id = $1", rule: "assets_orientation_is_exif",
            says: "orientation 9"),
        Breach(
            sql: "UPDATE darkroom.assets SET latitude = 90.5 WHERE id = $1", rule: "assets_latitude_in_range",
            says: "90.5"),
        Breach(
            sql: "UPDATE darkroom.assets SET longitude = -181 WHERE id = $1", rule: "assets_longitude_in_range",
            says: "-181"),
        Breach(
            sql: "UPDATE darkroom.assets SET creation_date_source = repeat('x', 257) WHERE id = $1",
            rule: "assets_creation_date_source_named", says: "257 characters"),
        Breach(
            sql: "UPDATE darkroom.assets SET creation_date_source = '' WHERE id = $1",
            rule: "assets_creation_date_source_named", says: "0 characters"),
        Breach(
            sql: "UPDATE darkroom.assets SET original_path = '../etc/passwd' WHERE id = $1",
            rule: "assets_original_path_in_storage", says: "'../etc/passwd'"),
        Breach(
            sql: Self.adjustment("'io..pipeline'", "'1.0'", "'renders/x.jpg'", "1", "'[]'"),
            rule: "adjustments_format_identifier_is_reverse_dns", says: "label 2 is empty"),
        Breach(
            sql: Self.adjustment("'io.darkroom.pipeline'", "'1.0.0-'", "'renders/x.jpg'", "1", "'[]'"),
            rule: "adjustments_format_version_is_semver", says: "'1.0.0-'"),
        Breach(
            sql: Self.adjustment("'io.darkroom.pipeline'", "'1.0'", "'renders/x.jpg'", "0", "'[]'"),
            rule: "adjustments_rendered_size_positive", says: "0 × 1"),
        Breach(
            sql: Self.adjustment("'io.darkroom.pipeline'", "'1.0'", "'renders/x.jpg'", "1", "'{}'"),
            rule: "adjustments_warnings_is_array", says: "warnings must be a JSON array"),
        Breach(
            sql: Self.adjustment("'io.darkroom.pipeline'", "'1.0'", "'/renders/x.jpg'", "1", "'[]'"),
            rule: "adjustments_rendered_path_in_storage", says: "it is absolute"),
    ]

    static func adjustment(_ identifier: String, _ version: String, _ path: String, _ width: String, _ warnings: String)
        -> String
    {
        """
        INSERT INTO darkroom.adjustments (asset_id, format_identifier, format_version, data, rendered_path,
                                          rendered_width, rendered_height, rendered_bytes, warnings)
        VALUES ($1, \(identifier), \(version), '\\x00', \(path), \(width), 1, 1, \(warnings))
        """
    }

    @Test(arguments: breaches)
    func aRowBreakingOneRuleIsRefusedByName(_ breach: Breach) throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            let done = try queue.enqueue(
                assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0", data: sampleData)
            let claimed = try queue.claim(workerID: "w", limit: 1, lease: .seconds(60))
            _ = try queue.complete(
                try #require(claimed.first { $0.id == done }), with: sampleAdjustment(for: claimed[0]))
            let queued = try queue.enqueue(
                assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0", data: sampleData)
            // Only the parameters the statement names are bound.
            let binds: [PostgresBind] = [.int(asset), .int(queued), .int(done)]
            let used = (1...3).filter { breach.sql.contains("$\($0)") }
            let error = #expect(throws: DatabaseError.self) {
                try connection.query(Self.numbered(breach.sql, keeping: used), used.map { binds[$0 - 1] })
            }
            #expect(error?.sqlState == "23514")
            #expect(error?.postgresError.constraintName == breach.rule)
            #expect(error?.message.contains(breach.rule) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains(breach.says) == true, "\(error?.message ?? "")")
        }
    }

    /// One validated CHECK for what changes as a job runs and for adjustment records; the
    /// rules of what is written once are triggers on exactly the columns they read.
    @Test func theRulesLiveInOneCheckPerTableAndTriggersOnTheirColumns() throws {
        try withQueueDatabase { _, connection in
            let checks = try connection.query(
                """
                SELECT conname, convalidated FROM pg_constraint
                 WHERE contype = 'c' AND conrelid IN ('darkroom.jobs'::regclass, 'darkroom.assets'::regclass, 'darkroom.adjustments'::regclass)
                 ORDER BY conname
                """)
            #expect(
                try checks.map { try $0["conname"].decode(String.self) } == ["adjustments_row_rules", "jobs_row_rules"])
            #expect(try checks.allSatisfy { try $0["convalidated"].decode(Bool.self) })
            let triggers = try connection.query(
                """
                SELECT tgname || ' on ' || (SELECT c.relname FROM pg_class AS c WHERE c.oid = t.tgrelid) || coalesce(' of ' || (
                           SELECT string_agg(a.attname, ',' ORDER BY a.attnum) FROM pg_attribute AS a
                            WHERE a.attrelid = t.tgrelid AND a.attnum = ANY (t.tgattr)), '') AS described
                  FROM pg_trigger AS t WHERE tgname LIKE '%rules%' ORDER BY tgname
                """
            ).map { try $0["described"].decode(String.self) }
            #expect(
                triggers == [
                    "assets_rules on assets of original_path,content_sha256,byte_size,pixel_width,pixel_height,orientation,latitude,longitude,creation_date_source",
                    "jobs_request_rules on jobs",
                    "jobs_request_rules_on_update on jobs of kind,format_identifier,format_version,data",
                ])
        }
    }

    /// $1…$3 renumbered to the ones a statement uses, in order.
    static func numbered(_ sql: String, keeping used: [Int]) -> String {
        var result = sql
        for (index, original) in used.enumerated() {
            result = result.replacingOccurrences(of: "$\(original)", with: "$\(index + 1)")
        }
        return result
    }
}
