import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

@Suite("LibPQ against a real server")
struct PostgresConnectionTests {
    @Test func bindsRoundTripThroughTheServer() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try PostgresConnection(url)
            let every = (0...255).map(UInt8.init)
            let date = Date(timeIntervalSince1970: 1_224_692_919.123456)
            let row = try connection.query(
                """
                SELECT $1::text AS text, $2::bigint AS int, $3::float8 AS double, $4::boolean AS bool,
                       $5::bytea AS bytes, $6::timestamptz AS date, $7::text AS null, $8::float8 AS nan,
                       $9::bigint AS min, $10::text AS unicode
                """,
                [
                    .text("it's \"quoted\"; DROP TABLE x; --"), .int(-42), .double(0.1), .bool(true),
                    .bytes(every), .timestamp(date), .null, .double(.nan), .int(.min), "Zürich 📷",
                ])[0]
            #expect(row["text"].string == "it's \"quoted\"; DROP TABLE x; --")
            #expect(row["int"].int64 == -42)
            #expect(row["int"].int == -42)
            #expect(row["double"].double == 0.1)
            #expect(row["bool"].bool == true)
            #expect(row["bytes"].bytes == every)
            #expect(try #require(row["date"].date).timeIntervalSince1970 == date.timeIntervalSince1970)
            #expect(row["null"].isNull && row["null"].string == nil)
            #expect(try #require(row["nan"].double).isNaN)
            #expect(row["min"].int64 == .min)
            #expect(row["unicode"].string == "Zürich 📷")
            #expect(row[0].string == row["text"].string)
        }
    }

    @Test func literalsBindWithoutSpellingTheCase() throws {
        try TestDatabase.withFreshDatabase { url in
            let row = try PostgresConnection(url).query(
                "SELECT $1::int + $2::int AS sum, $3::text || 'b' AS text, $4::float8 AS f, $5::bool AS b, $6::text AS n",
                [40, 2, "a", 1.5, false, nil])[0]
            #expect(row["sum"].int == 42)
            #expect(row["text"].string == "ab")
            #expect(row["f"].double == 1.5)
            #expect(row["b"].bool == false)
            #expect(row["n"].isNull)
        }
    }

    @Test(
        "timestamps PostgreSQL prints are parsed exactly",
        arguments: [
            ("2008-10-22 16:28:39+00", 1_224_692_919.0),
            ("2008-10-22 16:28:39.5+00", 1_224_692_919.5),
            ("2008-10-22 18:28:39.123456+02", 1_224_692_919.123456),
            ("2008-10-22 11:58:39-04:30", 1_224_692_919.0),
            ("1969-12-31 23:59:59.999999+00", -0.000001),
            ("1900-02-28 00:00:00+00", -2_203_977_600.0),
            ("2400-02-29 12:00:00+00", 13_574_606_400.0),
        ])
    func timestamps(text: String, expected: Double) throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try PostgresConnection(url)
            let cell = try connection.query(
                "SELECT $1::timestamptz AS t, ($1::timestamptz)::text AS printed", [.text(text)])[0]
            let date = try cell["t"].decode(Date.self)
            #expect(abs(date.timeIntervalSince1970 - expected) < 0.000_000_5, "\(cell["printed"].string ?? "")")
            // And the same instant sent back binds to an equal timestamptz.
            #expect(
                try connection.query(
                    "SELECT $1::timestamptz = $2::timestamptz AS same", [.timestamp(date), .text(text)])[0]["same"].bool
                    == true)
        }
    }

    /// No SETs on connect (PgBouncer in transaction mode would hand them to other clients):
    /// values decode the same whatever the server's TimeZone and bytea_output are, and only a
    /// non-ISO DateStyle is corrected.
    @Test func resultsDecodeWhateverTheServersSessionDefaults() throws {
        try TestDatabase.withFreshDatabase { url in
            let admin = try PostgresConnection(url)
            let database = try admin.query("SELECT current_database() AS d")[0]["d"].decode(String.self)
            let plain = try PostgresConnection(url)
            #expect(try plain.query("SELECT current_setting('application_name') AS app")[0]["app"].string == "darkroom")
            #expect(
                try plain.query("SELECT count(*) AS n FROM pg_settings WHERE source = 'session'")[0]["n"].int == 0,
                "a connection to an ISO server sets nothing")

            for (setting, value) in [
                ("TimeZone", "Asia/Kolkata"), ("bytea_output", "escape"), ("DateStyle", "SQL, DMY"),
            ] {
                try admin.execute("ALTER DATABASE \(try admin.quotedIdentifier(database)) SET \(setting) = '\(value)'")
            }
            let odd = try PostgresConnection(url)
            #expect(odd.parameterStatus("TimeZone") == "Asia/Kolkata")
            #expect(
                odd.parameterStatus("DateStyle")?.hasPrefix("ISO") == true, "a SQL-style DateStyle is replaced by ISO")
            let row = try odd.query(
                """
                SELECT '2000-01-01 00:00:00+05'::timestamptz AS at, '\\x00015c27ff'::bytea AS raw, 'a\\\\b'::bytea AS slash,
                       current_setting('bytea_output') AS output
                """)[0]
            #expect(row["output"].string == "escape")
            #expect(row["at"].date == Date(timeIntervalSince1970: 946_666_800))
            #expect(row["raw"].bytes == [0x00, 0x01, 0x5C, 0x27, 0xFF])
            #expect(row["slash"].bytes == Array(#"a\b"#.utf8))
        }
    }

    @Test func dateAndSpecialValuesDecode() throws {
        try TestDatabase.withFreshDatabase { url in
            let row = try PostgresConnection(url).query(
                "SELECT '2024-02-29'::date AS d, 'infinity'::timestamptz AS inf, '0003-01-01 BC'::date AS bc, 'NaN'::float8 AS nan, '-Infinity'::float8 AS ninf, 1.25::numeric AS num"
            )[0]
            #expect(row["d"].date == Date(timeIntervalSince1970: 1_709_164_800))
            #expect(row["inf"].date == .distantFuture)
            // 3 BC, sent back as a bind, is the same day the server printed.
            let bc = try row["bc"].decode(Date.self)
            #expect(
                try PostgresConnection(url).query(
                    "SELECT $1::timestamptz = '0003-01-01 00:00:00+00 BC'::timestamptz AS same", [.timestamp(bc)])[0][
                        "same"
                    ].bool == true)
            #expect(try #require(row["nan"].double).isNaN)
            #expect(row["ninf"].double == -.infinity)
            #expect(row["num"].double == 1.25)
        }
    }

    @Test func decodeNamesTheColumnThatFailed() throws {
        try TestDatabase.withFreshDatabase { url in
            let row = try PostgresConnection(url).query("SELECT NULL::bigint AS missing_value, 'abc' AS word")[0]
            let null = #expect(throws: PostgresDecodingError.self) { try row["missing_value"].decode(Int64.self) }
            #expect(null?.reason == .null)
            #expect(null?.description.contains("missing_value") == true)
            let bad = #expect(throws: PostgresDecodingError.self) { try row["word"].decode(Int.self) }
            #expect(bad?.reason == .unparseable("abc"))
            #expect(bad?.description.contains("\"word\"") == true)
            let absent = #expect(throws: PostgresDecodingError.self) { try row["nope"].decode(String?.self) }
            #expect(absent?.reason == .missingColumn)
            #expect(try row["missing_value"].decode(Int64?.self) == nil)
            #expect(row["word"].int == nil)
        }
    }

    @Test func serverErrorsCarryTheirFields() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try PostgresConnection(url)
            try connection.execute("CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1)")
            let duplicate = #expect(throws: PostgresError.self) {
                try connection.query("INSERT INTO t VALUES ($1)", [1])
            }
            #expect(duplicate?.sqlState == "23505")
            #expect(duplicate?.code == .queryFailed)
            #expect(duplicate?.constraintName == "t_pkey")
            #expect(duplicate?.detail?.contains("(id)=(1)") == true)
            #expect(duplicate?.isConnectionFailure == false)

            let raised = #expect(throws: PostgresError.self) {
                try connection.execute("DO $$ BEGIN RAISE EXCEPTION 'custom failure' USING HINT = 'try again'; END $$")
            }
            #expect(raised?.sqlState == "P0001")
            #expect(raised?.message == "custom failure")
            #expect(raised?.hint == "try again")
            // The connection stays usable after a failed statement.
            #expect(try connection.query("SELECT count(*) AS n FROM t")[0]["n"].int == 1)
        }
    }

    @Test func affectedRowsAndCommandTag() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try PostgresConnection(url)
            try connection.execute("CREATE TABLE t (n int); INSERT INTO t SELECT generate_series(1, 10)")
            let updated = try connection.query("UPDATE t SET n = n + 1 WHERE n > $1", [7])
            #expect(updated.affectedRows == 3)
            #expect(updated.commandTag == "UPDATE 3")
            #expect(updated.isEmpty)
            let selected = try connection.query("SELECT n FROM t ORDER BY n")
            #expect(selected.count == 10)
            #expect(selected.map { $0["n"].int } == [1, 2, 3, 4, 5, 6, 7, 9, 10, 11])
        }
    }

    @Test func connectingToNothingIsAConnectionFailure() throws {
        // Port 1 on loopback: nothing listens there, so the refusal is immediate.
        let error = #expect(throws: PostgresError.self) {
            try PostgresConnection("postgresql://darkroom@127.0.0.1:1/none?connect_timeout=2")
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.isConnectionFailure == true)
        #expect(error?.message.isEmpty == false)
    }

    @Test func aTerminatedSessionIsReportedAsLostAndCanBeReset() throws {
        try TestDatabase.withFreshDatabase { url in
            let victim = try PostgresConnection(url)
            let killer = try PostgresConnection(url)
            _ = try killer.query("SELECT pg_terminate_backend($1)", [.int(Int64(victim.backendPID))])
            let error = #expect(throws: PostgresError.self) { try victim.query("SELECT 1") }
            #expect(error?.isConnectionFailure == true)
            #expect(!victim.isConnected)
            try victim.reset()
            #expect(victim.isConnected)
            #expect(try victim.query("SELECT 1 AS one")[0]["one"].int == 1)
        }
    }

    @Test func transactionsCommitOrRollBack() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try PostgresConnection(url)
            try connection.execute("CREATE TABLE t (n int)")
            struct Abort: Error {}

            try connection.withTransaction { _ = try connection.query("INSERT INTO t VALUES (1)") }
            #expect(throws: Abort.self) {
                try connection.withTransaction {
                    _ = try connection.query("INSERT INTO t VALUES (2)")
                    throw Abort()
                }
            }
            // A nested transaction is a savepoint: only the inner part is undone.
            try connection.withTransaction {
                _ = try connection.query("INSERT INTO t VALUES (3)")
                try? connection.withTransaction {
                    _ = try connection.query("INSERT INTO t VALUES (4)")
                    throw Abort()
                }
            }
            #expect(connection.transactionStatus == .idle)
            #expect(try connection.query("SELECT n FROM t ORDER BY n").map { $0["n"].int } == [1, 3])
        }
    }

    @Test func aSwallowedErrorDoesNotPretendToCommit() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try PostgresConnection(url)
            try connection.execute("CREATE TABLE t (n int)")
            let error = #expect(throws: PostgresError.self) {
                try connection.withTransaction {
                    _ = try connection.query("INSERT INTO t VALUES (1)")
                    _ = try? connection.query("SELECT 1 / 0")
                }
            }
            #expect(error?.sqlState == "25P02")
            #expect(connection.transactionStatus == .idle)
            #expect(try connection.query("SELECT count(*) AS n FROM t")[0]["n"].int == 0)
        }
    }

    @Test func noticesGoToTheHandlerNotToStderr() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try PostgresConnection(url)
            var notices: [PostgresNotice] = []
            connection.onNotice = { notices.append($0) }
            try connection.execute("DO $$ BEGIN RAISE NOTICE 'hello %', 42; END $$")
            #expect(notices.map(\.message) == ["hello 42"])
            #expect(notices.first?.severity == "NOTICE")
        }
    }

    @Test func notificationsOnAnOddlyNamedChannel() throws {
        try TestDatabase.withFreshDatabase { url in
            let listener = try PostgresConnection(url)
            let sender = try PostgresConnection(url)
            let channel = #"odd "channel"; name"#
            try listener.listen(channel)
            _ = try sender.query("SELECT pg_notify($1, 'payload one')", [.text(channel)])
            let received = try listener.waitForNotification(timeout: .seconds(5))
            #expect(
                received == [
                    PostgresNotification(channel: channel, payload: "payload one", backendPID: sender.backendPID)
                ])

            let start = ContinuousClock.now
            #expect(try listener.waitForNotification(timeout: .milliseconds(200)).isEmpty)
            #expect(ContinuousClock.now - start >= .milliseconds(190))

            try listener.unlisten(channel)
            _ = try sender.query("SELECT pg_notify($1, 'ignored')", [.text(channel)])
            #expect(try listener.waitForNotification(timeout: .milliseconds(200)).isEmpty)
        }
    }

    @Test func copyIsRefusedAndTheConnectionRecovers() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try PostgresConnection(url)
            try connection.execute("CREATE TABLE t (n int)")
            let error = #expect(throws: PostgresError.self) { try connection.query("COPY t FROM STDIN") }
            #expect(error?.code == .unexpectedResult)
            #expect(try connection.query("SELECT 1 AS one")[0]["one"].int == 1)
        }
    }

    @Test func identifiersAreQuoted() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try PostgresConnection(url)
            #expect(try connection.quotedIdentifier(#"a "b""#) == #""a ""b""""#)
        }
    }
}
