import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// Binary results and parameters: every type LibPQ decodes, checked against what the server
/// itself says about the same value.
@Suite("LibPQ binary values against a real server")
struct PostgresBinaryTests {
    @Test func everyDecodedTypeReadsWhatTheServerSent() throws {
        try TestDatabase.withFreshDatabase { url in
            let row = try DatabaseConnection(url).query(
                """
                SELECT (-32768)::int2 AS i2, 2147483647::int4 AS i4, (-9223372036854775808)::int8 AS i8, 4000000000::oid AS o,
                       1.5::float4 AS f4, 0.1::float8 AS f8, '-Infinity'::float8 AS ninf, true AS t, false AS f,
                       'Zürich 📷'::text AS txt, 'vc'::varchar(10) AS vc, 'pg_class'::name AS nm, 'ab'::char(4) AS bp,
                       'x'::"char" AS ch, '\\x00ff5c'::bytea AS b, ''::bytea AS empty,
                       '{"b": [1, 2], "a": "é"}'::jsonb AS jb, '{"b": [1, 2], "a": "é"}'::json AS js,
                       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, '42'::text AS digits, 't'::text AS yes
                """)[0]
            #expect(row["i2"].int == -32768 && row["i2"].value(Int32.self) == -32768)
            #expect(row["i4"].int64 == 2_147_483_647 && row["i4"].double == 2_147_483_647)
            #expect(row["i8"].int64 == .min)
            #expect(row["o"].int64 == 4_000_000_000)
            #expect(row["f4"].double == 1.5)
            #expect(row["f8"].double == 0.1)
            #expect(row["ninf"].double == -.infinity)
            #expect(row["t"].bool == true && row["f"].bool == false)
            #expect(row["txt"].string == "Zürich 📷" && row["txt"].bytes == Array("Zürich 📷".utf8))
            #expect(row["vc"].string == "vc" && row["nm"].string == "pg_class" && row["bp"].string == "ab  ")
            #expect(row["ch"].string == "x")
            #expect(row["b"].bytes == [0x00, 0xFF, 0x5C] && row["empty"].bytes == [])
            #expect(
                row["jb"].string == #"{"a": "é", "b": [1, 2]}"#,
                "jsonb without its version byte, as the server prints it")
            #expect(row["js"].string == #"{"b": [1, 2], "a": "é"}"#)
            #expect(row["u"].uuid == UUID(uuidString: "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"))
            // Text that spells a number or a boolean still reads as one.
            #expect(row["digits"].int == 42 && row["digits"].double == 42 && row["yes"].bool == true)
        }
    }

    @Test func nullsOfEveryTypeAreNil() throws {
        try TestDatabase.withFreshDatabase { url in
            let types = [
                "int2", "int4", "int8", "float8", "boolean", "text", "bytea", "timestamptz", "date", "uuid", "jsonb",
                "numeric",
            ]
            let row = try DatabaseConnection(url).query(
                "SELECT " + types.map { "NULL::\($0) AS \"\($0)\"" }.joined(separator: ", "))[0]
            for type in types {
                #expect(row[type].isNull, "\(type)")
                #expect(try row[type].decode(String?.self) == nil && row[type].string == nil, "\(type)")
            }
            #expect(
                try row["bytea"].decode([UInt8]?.self) == nil && row["timestamptz"].date == nil
                    && row["uuid"].uuid == nil)
            let error = #expect(throws: PostgresDecodingError.self) { try row["timestamptz"].decode(Date.self) }
            #expect(error?.reason == .null && error?.typeOID == 1184)
        }
    }

    @Test func numericReadsExactlyAsTheServerPrintsIt() throws {
        try TestDatabase.withFreshDatabase { url in
            let values = [
                "0", "-12.50", "0.000001234", "1e-20", "123456789012345678901234567890.123", "-9223372036854775808",
                "10000", "99990000.00010000", "42.000", "NaN", "Infinity", "-Infinity", "round(2.0 / 3, 4)",
            ]
            let connection = try DatabaseConnection(url)
            for value in values {
                let row = try connection.query(
                    "SELECT (\(value.contains("(") ? value : "'\(value)'"))::numeric AS n, (\(value.contains("(") ? value : "'\(value)'"))::numeric::text AS printed"
                )[0]
                let printed = try row["printed"].decode(String.self)
                #expect(row["n"].string == printed, "\(value)")
                let double = try row["n"].decode(Double.self)
                #expect(double == Double(printed) || (double.isNaN && printed == "NaN"), "\(value)")
            }
            let whole = try connection.query(
                "SELECT 42.000::numeric AS n, (-9223372036854775808)::numeric AS min, 1.5::numeric AS half, 1e30::numeric AS big"
            )[0]
            #expect(whole["n"].int == 42 && whole["min"].int64 == .min)
            #expect(
                #expect(throws: PostgresDecodingError.self) { try whole["half"].decode(Int64.self) }?.reason
                    == .outOfRange("1.5"))
            #expect(
                #expect(throws: PostgresDecodingError.self) { try whole["big"].decode(Int64.self) }?.reason
                    == .outOfRange("1000000000000000000000000000000"))
        }
    }

    @Test func infiniteTimestampsAndDatesAreTheDistantDates() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try DatabaseConnection(url)
            let row = try connection.query(
                """
                SELECT 'infinity'::timestamptz AS a, '-infinity'::timestamptz AS b, 'infinity'::timestamp AS c,
                       '-infinity'::date AS d, '2024-02-29 12:00'::timestamp AS plain
                """)[0]
            #expect(row["a"].date == .distantFuture && row["b"].date == .distantPast)
            #expect(row["c"].date == .distantFuture && row["d"].date == .distantPast)
            #expect(
                row["plain"].date == Date(timeIntervalSince1970: 1_709_208_000), "a timestamp without time zone is UTC")
            let back = try connection.query(
                "SELECT $1::timestamptz::text AS future, $2::timestamptz::text AS past",
                [.timestamp(.distantFuture), .timestamp(.distantPast)])[0]
            #expect(back["future"].string == "infinity" && back["past"].string == "-infinity")
        }
    }

    /// Server → Date → server keeps every microsecond within ±2^33 s of 2001 (1729–2273), and
    /// Date → server → Date is the identity everywhere, including far from 2000.
    @Test(
        "timestamps round trip to the microsecond",
        arguments: [
            "1969-07-20 20:17:40.123456+00", "1999-12-31 23:59:59.999999+00", "2000-01-01 00:00:00.000001+00",
            "1900-02-28 00:00:00.5+00", "1750-06-15 13:14:15.000007+00", "2262-04-11 23:47:16.854775+00",
            "2038-01-19 03:14:08.000001+00", "0001-01-01 00:00:00+00", "4713-11-24 00:00:00+00 BC",
            "9999-12-31 23:59:59.5+00",
            "294276-12-31 23:59:59+00",
        ])
    func timestampRoundTrip(literal: String) throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try DatabaseConnection(url)
            // Microseconds since 2000, as the server counts them (since 1970 would overflow bigint near the end of time).
            let micros = "(extract(epoch FROM $1::timestamptz - '2000-01-01 00:00:00+00') * 1000000)::bigint AS micros"
            let row = try connection.query("SELECT $1::timestamptz AS t, \(micros)", [.text(literal)])[0]
            let date = try row["t"].decode(Date.self)
            let back = try connection.query(
                "SELECT $1::timestamptz = $2::timestamptz AS same, $1::timestamptz AS t, \(micros)",
                [.timestamp(date), .text(literal)])[0]
            #expect(try back["t"].decode(Date.self) == date, "Date → server → Date")
            if abs(date.timeIntervalSinceReferenceDate) < 0x1p33 {
                #expect(
                    back["same"].bool == true && back["micros"].int64 == row["micros"].int64, "server → Date → server")
            } else {
                // A Double this far out is coarser than a microsecond: the Date is the nearest one.
                #expect(
                    abs(try back["micros"].decode(Int64.self) - row["micros"].decode(Int64.self))
                        <= Int64(date.timeIntervalSinceReferenceDate.ulp * 1_000_000))
            }
        }
    }

    @Test func randomMicrosecondTimestampsRoundTripExactly() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try DatabaseConnection(url)
            // Instants from 1740 to 2260, each with a random microsecond.
            let rows = try connection.query(
                """
                SELECT t, (extract(epoch FROM t) * 1000000)::bigint AS micros
                  FROM (SELECT '1740-01-01 00:00:00+00'::timestamptz + make_interval(secs => floor(random() * 16410000000000000) / 1000000) AS t
                          FROM generate_series(1, 300)) AS random
                """)
            for row in rows {
                let date = try row["t"].decode(Date.self)
                let back = try connection.query(
                    "SELECT (extract(epoch FROM $1::timestamptz) * 1000000)::bigint AS micros", [.timestamp(date)])[0]
                #expect(back["micros"].int64 == row["micros"].int64)
            }
        }
    }

    @Test func intervalsAreDurationsWithoutMonths() throws {
        try TestDatabase.withFreshDatabase { url in
            let row = try DatabaseConnection(url).query(
                """
                SELECT '1 day 02:03:04.000005'::interval AS span, '-00:00:01.5'::interval AS back, '1 mon'::interval AS month
                """)[0]
            #expect(row["span"].value(Duration.self) == .seconds(93_784) + .microseconds(5))
            #expect(row["back"].value(Duration.self) == .milliseconds(-1500))
            let month = #expect(throws: PostgresDecodingError.self) { try row["month"].decode(Duration.self) }
            #expect(
                month?.reason == .outOfRange("an interval of 1 month(s), 0 day(s) and 0 µs") && month?.typeOID == 1186)
            #expect(
                #expect(throws: PostgresDecodingError.self) { try row["span"].decode(String.self) }?.reason
                    == .typeMismatch)
        }
    }

    @Test func aMebibyteOfBytesRoundTripsUnchanged() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try DatabaseConnection(url)
            var generator = SystemRandomNumberGenerator()
            let data = (0..<1 << 20).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try connection.execute("CREATE TABLE blobs (id int PRIMARY KEY, data bytea NOT NULL)")
            _ = try connection.query("INSERT INTO blobs VALUES (1, $1)", [.bytes(data)])
            let row = try connection.query(
                "SELECT data, octet_length(data) AS length, get_byte(data, 0) AS first, get_byte(data, 1048575) AS last FROM blobs"
            )[0]
            #expect(
                row["length"].int == 1 << 20 && row["first"].int == Int(data[0])
                    && row["last"].int == Int(data[(1 << 20) - 1]))
            #expect(try row["data"].decode([UInt8].self) == data)
            #expect(
                try connection.query("SELECT $1::bytea = data AS same FROM blobs", [.bytes(data)])[0]["same"].bool
                    == true)
        }
    }

    /// Adjustment data goes in and comes out as raw bytes: enqueue, claim, complete, read back.
    @Test func aMebibyteOfAdjustmentDataTravelsThroughTheQueueUnchanged() throws {
        try withQueueDatabase { _, connection in
            let asset = try registerAsset(1, on: connection)
            var generator = SystemRandomNumberGenerator()
            let data = (0..<1 << 20).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let queue = JobQueue(connection, logger: .quiet)
            let id = try queue.enqueue(
                assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0", data: data)
            let claimed = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
            #expect(claimed.id == id && claimed.data == data)
            _ = try queue.complete(claimed, with: sampleAdjustment(for: claimed))
            #expect(try AssetStore(connection).currentAdjustment(of: asset)?.data == data)
            #expect(try queue.job(id: id)?.data == data)
        }
    }

    @Test func uuidsBindInBinary() throws {
        try TestDatabase.withFreshDatabase { url in
            let uuid = UUID()
            let row = try DatabaseConnection(url).query("SELECT $1 AS u, $1::text AS printed", [.uuid(uuid)])[0]
            #expect(row["u"].uuid == uuid && row["printed"].string == uuid.uuidString.lowercased())
        }
    }

    @Test func aDateNoTimestampHoldsIsRefusedBeforeSending() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try DatabaseConnection(url)
            let error = #expect(throws: DatabaseError.self) {
                try connection.query("SELECT $1::timestamptz", [.timestamp(Date(timeIntervalSinceReferenceDate: .nan))])
            }
            #expect(error?.code == .invalidParameter)
            #expect(try connection.query("SELECT 1 AS one")[0]["one"].int == 1)
        }
    }

    @Test func unknownAndMismatchedTypesAreTypedErrors() throws {
        try TestDatabase.withFreshDatabase { url in
            let row = try DatabaseConnection(url).query(
                """
                SELECT '10.0.0.1'::inet AS host, ARRAY[1, 2] AS list, '(1,2)'::point AS spot, now() AS at,
                       5000000000::bigint AS big, 7 AS seven, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u
                """)[0]
            for (column, oid) in [("host", 869 as UInt32), ("list", 1007), ("spot", 600)] {
                let error = #expect(throws: PostgresDecodingError.self) { try row[column].decode(String.self) }
                #expect(error?.reason == .unknownType && error?.typeOID == oid)
                #expect(
                    error?.description.contains("\"\(column)\"") == true
                        && error?.description.contains("type OID \(oid)") == true)
                #expect(row[column].string == nil && row[column].bytes == nil)
            }
            let mismatch = #expect(throws: PostgresDecodingError.self) { try row["at"].decode(Int64.self) }
            #expect(
                mismatch?.reason == .typeMismatch && mismatch?.description.contains("timestamp with time zone") == true)
            #expect(
                #expect(throws: PostgresDecodingError.self) { try row["seven"].decode(Date.self) }?.reason
                    == .typeMismatch)
            #expect(
                #expect(throws: PostgresDecodingError.self) { try row["seven"].decode(String.self) }?.reason
                    == .typeMismatch)
            #expect(
                #expect(throws: PostgresDecodingError.self) { try row["u"].decode([UInt8].self) }?.reason
                    == .typeMismatch)
            #expect(
                #expect(throws: PostgresDecodingError.self) { try row["big"].decode(Int32.self) }?.reason
                    == .outOfRange("5000000000"))
        }
    }

    @Test func malformedBinaryValuesAreTypedErrors() {
        func value(_ oid: UInt32, _ bytes: [UInt8]) -> PostgresValue {
            PostgresValue(typeOID: oid, format: .binary, bytes: bytes[...])
        }
        func reason(_ body: () throws -> Void) -> PostgresDecodingError.Reason? {
            do {
                try body()
                return nil
            } catch { return error as? PostgresDecodingError.Reason }
        }
        #expect(
            reason { _ = try Int64(postgresValue: value(20, [1, 2, 3])) } == .malformed("int8 needs 8 bytes, got 3"))
        #expect(reason { _ = try Bool(postgresValue: value(16, [2])) } == .malformed("boolean byte 2"))
        #expect(
            reason { _ = try UUID(postgresValue: value(2950, Array(repeating: 0, count: 15))) }
                == .malformed("uuid needs 16 bytes, got 15"))
        #expect(
            reason { _ = try String(postgresValue: value(3802, [2, 0x7B, 0x7D])) }
                == .malformed("jsonb version 2, expected 1"))
        #expect(
            reason { _ = try Date(postgresValue: value(1184, [0, 0, 0, 0])) }
                == .malformed("timestamp needs 8 bytes, got 4"))
        #expect(
            reason { _ = try Double(postgresValue: value(1700, [0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10])) }
                == .malformed("numeric digit outside 0...9999"))
        #expect(
            reason { _ = try Double(postgresValue: value(1700, [0, 2, 0, 0, 0, 0, 0, 0])) }
                == .malformed("numeric says 2 digits but has 0 bytes of them"))
        #expect(
            reason { _ = try Double(postgresValue: value(1700, [0, 0, 0, 0, 0x12, 0x34, 0, 0])) }
                == .malformed("numeric sign 0x1234 is not one PostgreSQL sends"))
        #expect(
            reason { _ = try Duration(postgresValue: value(1186, Array(repeating: 0, count: 12))) }
                == .malformed("interval needs 16 bytes, got 12"))
        #expect(reason { _ = try String(postgresValue: value(600, [])) } == .unknownType)
    }

    @Test func textResultsShowWhatTheServerPrintsAndRefuseDatesAndBytes() throws {
        try TestDatabase.withFreshDatabase { url in
            let row = try DatabaseConnection(url).query(
                "SELECT 42::bigint AS n, '2008-10-22 16:28:39.5+00'::timestamptz AS at, '\\x01ff'::bytea AS b, 'a'::text AS a, $1::int AS p",
                [7], resultFormat: .text)[0]
            #expect(row.columns.allSatisfy { $0.format == .text })
            #expect(row["n"].string == "42" && row["n"].int64 == 42 && row["p"].int == 7 && row["a"].bytes == [0x61])
            #expect(row["at"].string?.hasPrefix("2008-10-22 ") == true && row["b"].string == "\\x01ff")
            #expect(
                #expect(throws: PostgresDecodingError.self) { try row["at"].decode(Date.self) }?.reason
                    == .fetchedAsText)
            #expect(
                #expect(throws: PostgresDecodingError.self) { try row["b"].decode([UInt8].self) }?.reason
                    == .fetchedAsText)
        }
    }

    enum Mood: String, PostgresDecodable { case calm, busy }

    @Test func stringEnumsDecodeFromTheirRawValue() throws {
        try TestDatabase.withFreshDatabase { url in
            let row = try DatabaseConnection(url).query("SELECT 'busy' AS good, 'sad' AS bad")[0]
            #expect(try row["good"].decode(Mood.self) == .busy)
            #expect(
                #expect(throws: PostgresDecodingError.self) { try row["bad"].decode(Mood.self) }?.reason
                    == .unparseable("sad"))
        }
    }
}
