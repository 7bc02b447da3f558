import DarkroomDatabase
import DarkroomTestSupport
import LibPQ
import Testing

/// `darkroom.enqueue_edit` called with plain SQL, as an operator would.
@Suite("enqueue_edit validation")
struct EnqueueValidationTests {
    static let enqueueSQL = "SELECT darkroom.enqueue_edit($1::bigint, $2::text, $3::text, $4::jsonb) AS id"

    @Test(
        "bad identifiers are refused, naming the problem",
        arguments: [
            ("pipeline", "at least two dot-separated labels"),
            ("io..x", "label 2 is empty"),
            ("-io.x", "starts or ends with a hyphen"),
            ("io.x-", "starts or ends with a hyphen"),
            ("'; DROP TABLE darkroom.jobs; --", "may contain only letters, digits and hyphens"),
            ("io.dark room", "may contain only letters, digits and hyphens"),
            ("", "it is empty"),
        ])
    func badIdentifier(identifier: String, problem: String) throws {
        try withQueueDatabase { _, connection in
            let asset = try registerAsset(1, on: connection)
            let error = #expect(throws: DatabaseError.self) {
                try connection.query(Self.enqueueSQL, [.int(asset), .text(identifier), "1.0", "{}"])
            }
            #expect(error?.sqlState == "22023")
            #expect(error?.message.contains("format_identifier") == true)
            #expect(error?.message.contains(problem) == true, "\(error?.message ?? "")")
            #expect(error?.hint?.contains("io.darkroom.pipeline") == true)
            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.jobs").int == 0)
        }
    }

    @Test(
        "bad versions are refused, naming the problem",
        arguments: [
            ("1", "has 1 dot-separated numbers"),
            ("01.0.0", "'01' has a leading zero"),
            ("1.0.0.0", "has 4 dot-separated numbers"),
            ("v1.0.0", "starts with \"v\""),
            ("1.x", "'x' is not a number"),
            ("1.0.0-01", "pre-release or +build suffix is malformed"),
            ("1.0.0+", "pre-release or +build suffix is malformed"),
        ])
    func badVersion(version: String, problem: String) throws {
        try withQueueDatabase { _, connection in
            let asset = try registerAsset(1, on: connection)
            let error = #expect(throws: DatabaseError.self) {
                try connection.query(Self.enqueueSQL, [.int(asset), "io.darkroom.pipeline", .text(version), "{}"])
            }
            #expect(error?.sqlState == "22023")
            #expect(error?.message.contains("format_version") == true)
            #expect(error?.message.contains(problem) == true, "\(error?.message ?? "")")
        }
    }

    @Test(
        "good identifiers and versions are accepted",
        arguments: [
            ("io.darkroom.pipeline", "1.0"),
            ("com.shinobicontrols.filster", "1.0.0"),
            ("com.example.my-filter", "2.1.0-beta.1+exp.sha.5114f85"),
            ("IO.X9", "0.0.1-alpha-2"),
        ])
    func goodValues(identifier: String, version: String) throws {
        try withQueueDatabase { _, connection in
            let asset = try registerAsset(1, on: connection)
            let id = try connection.query(
                Self.enqueueSQL, [.int(asset), .text(identifier), .text(version), #"{"a": 1}"#])[0]["id"].decode(
                    Int64.self)
            let job = try #require(try JobQueue(connection, logger: .quiet).job(id: id))
            #expect(job.formatIdentifier == identifier)
            #expect(job.formatVersion == version)
            #expect(job.state == .queued)
        }
    }

    @Test func unknownAssetIsNamed() throws {
        try withQueueDatabase { _, connection in
            let error = #expect(throws: DatabaseError.self) {
                try connection.query(Self.enqueueSQL, [4242, "io.darkroom.pipeline", "1.0", "{}"])
            }
            #expect(error?.sqlState == "23503")
            #expect(error?.message == "asset 4242 does not exist")
        }
    }

    @Test func nullArgumentsAreRefused() throws {
        try withQueueDatabase { _, connection in
            let asset = try registerAsset(1, on: connection)
            let valid: [PostgresBind] = [.int(asset), "io.darkroom.pipeline", "1.0", "{}", 0]
            let names = ["asset_id", "format_identifier", "format_version", "data", "priority"]
            for (index, name) in names.enumerated() {
                var binds = valid
                binds[index] = .null
                let error = #expect(throws: DatabaseError.self) {
                    try connection.query(
                        "SELECT darkroom.enqueue_edit($1::bigint, $2::text, $3::text, $4::jsonb, $5::int)", binds)
                }
                #expect(error?.sqlState == "22004", "\(name)")
                #expect(error?.message == "\(name) must not be NULL")
            }
        }
    }

    @Test func dataOverOneMebibyteIsRefusedWithItsSize() throws {
        try withQueueDatabase { _, connection in
            let asset = try registerAsset(1, on: connection)
            let sql = "SELECT darkroom.enqueue_edit($1::bigint, 'io.darkroom.pipeline', '1.0', $2::bytea) AS id"
            let error = #expect(throws: DatabaseError.self) {
                try connection.query(sql, [.int(asset), .bytes([UInt8](repeating: 7, count: 1_048_577))])
            }
            #expect(error?.sqlState == "54000")
            #expect(error?.message == "data is 1048577 bytes; the limit is 1048576 bytes (1 MiB)")
            // Exactly at the limit is fine.
            #expect(
                try connection.query(sql, [.int(asset), .bytes([UInt8](repeating: 7, count: 1_048_576))])[0]["id"].int64
                    != nil)
        }
    }

    @Test func jsonAndByteaOverloadsStoreBytes() throws {
        try withQueueDatabase { _, connection in
            let asset = try registerAsset(1, on: connection)
            let queue = JobQueue(connection, logger: .quiet)
            let fromJSONB = try scalar(
                connection,
                "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0', '{\"b\": [1, 2]}'::jsonb, 5, 'batch-a')",
                [.int(asset)]
            ).decode(Int64.self)
            let fromLiteral = try scalar(
                connection, "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0', '{\"b\":[1,2]}')",
                [.int(asset)]
            ).decode(Int64.self)
            let fromBytea = try scalar(
                connection, "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0', '\\x00ff10'::bytea)",
                [.int(asset)]
            ).decode(Int64.self)

            let jsonb = try #require(try queue.job(id: fromJSONB))
            #expect(String(decoding: jsonb.data ?? [], as: UTF8.self) == #"{"b": [1, 2]}"#)
            #expect(jsonb.priority == 5)
            #expect(jsonb.batch == "batch-a")
            // An untyped literal is read as JSON and stored in the same normalized form.
            #expect(try queue.job(id: fromLiteral)?.data == jsonb.data)
            #expect(try queue.job(id: fromBytea)?.data == [0x00, 0xFF, 0x10])

            let notJSON = #expect(throws: DatabaseError.self) {
                try connection.query(
                    "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0', 'not json')", [.int(asset)])
            }
            #expect(notJSON?.message.hasPrefix("data is not valid JSON") == true)
        }
    }

    @Test func swiftEnqueueMapsRefusalsToQueueErrors() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            let missing = #expect(throws: QueueError.self) {
                try queue.enqueue(
                    assetID: 999, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0", data: [])
            }
            #expect(missing?.code == .assetNotFound && missing?.assetID == 999, "\(String(describing: missing))")
            let invalid = #expect(throws: QueueError.self) {
                try queue.enqueue(assetID: asset, formatIdentifier: "pipeline", formatVersion: "1.0", data: [])
            }
            #expect(invalid?.code == .invalidJob)
            #expect(invalid?.description.contains("at least two dot-separated labels") == true)
        }
    }

    @Test func rowsInsertedByHandObeyTheSameRules() throws {
        try withQueueDatabase { _, connection in
            let asset = try registerAsset(1, on: connection)
            let error = #expect(throws: DatabaseError.self) {
                try connection.query(
                    "INSERT INTO darkroom.jobs (asset_id, format_identifier, format_version, data) VALUES ($1, 'pipeline', '1.0', '\\x00')",
                    [.int(asset)])
            }
            #expect(error?.sqlState == "23514")
            #expect(error?.postgresError.constraintName == "jobs_format_identifier_is_reverse_dns")
        }
    }
}
