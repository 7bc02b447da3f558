/// How a value travels between libpq and the server: the type's binary send/receive form, or
/// its text output (what psql prints).
public enum PostgresFormat: Int32, Sendable, Hashable {
    case text = 0
    case binary = 1
}

/// One non-NULL value exactly as the server sent it, for `PostgresDecodable` conformances.
public struct PostgresValue: Sendable, Hashable {
    /// The column's type, e.g. 17 for `bytea` (see `pg_type`).
    public var typeOID: UInt32
    public var format: PostgresFormat
    /// Binary: the type's send form, big-endian. Text: UTF-8.
    public var bytes: ArraySlice<UInt8>

    public init(typeOID: UInt32, format: PostgresFormat, bytes: ArraySlice<UInt8>) {
        self.typeOID = typeOID
        self.format = format
        self.bytes = bytes
    }

    /// The value as a string when it is one: anything fetched as text, or a binary value of a
    /// textual type. `nil` for other binary values.
    public func textual() throws(PostgresDecodingError.Reason) -> String? {
        if format == .text { return utf8(bytes) }
        switch typeOID {
        case PostgresOID.text, PostgresOID.varchar, PostgresOID.name, PostgresOID.bpchar, PostgresOID.char,
            PostgresOID.unknown, PostgresOID.json:
            return utf8(bytes)
        case PostgresOID.jsonb:
            // jsonb's binary form is a version byte, then the JSON text; only version 1 exists.
            guard bytes.first == 1 else {
                throw .malformed("jsonb version \(bytes.first.map(String.init) ?? "missing"), expected 1")
            }
            return utf8(bytes.dropFirst())
        default:
            return nil
        }
    }

    /// The error for a value `T` cannot be read from: a type LibPQ does not know at all, or a
    /// known one that is not a `T`.
    public var unsupported: PostgresDecodingError.Reason {
        PostgresOID.name(of: typeOID) == nil ? .unknownType : .typeMismatch
    }

    /// The big-endian integer of exactly `size` bytes, for binary fixed-width types.
    func bigEndian(bytes size: Int, of type: String) throws(PostgresDecodingError.Reason) -> UInt64 {
        guard bytes.count == size else { throw .malformed("\(type) needs \(size) bytes, got \(bytes.count)") }
        return Self.bigEndian(bytes)
    }

    /// Up to 8 bytes as a big-endian integer.
    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// int2, int4, int8 and oid as an Int64; `nil` for other types or for text.
    func binaryInteger() throws(PostgresDecodingError.Reason) -> Int64? {
        guard format == .binary else { return nil }
        switch typeOID {
        case PostgresOID.int2: return Int64(Int16(truncatingIfNeeded: try bigEndian(bytes: 2, of: "int2")))
        case PostgresOID.int4: return Int64(Int32(truncatingIfNeeded: try bigEndian(bytes: 4, of: "int4")))
        case PostgresOID.int8: return Int64(bitPattern: try bigEndian(bytes: 8, of: "int8"))
        case PostgresOID.oid: return Int64(try bigEndian(bytes: 4, of: "oid"))
        default: return nil
        }
    }

    private func utf8(_ bytes: ArraySlice<UInt8>) -> String {
        // The connection asks for UTF-8 (client_encoding), so this never needs to repair anything.
        String(decoding: bytes, as: UTF8.self)
    }
}

/// The type OIDs LibPQ decodes (fixed in PostgreSQL's catalog, `pg_type.dat`).
enum PostgresOID {
    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let char: UInt32 = 18
    static let name: UInt32 = 19
    static let int8: UInt32 = 20
    static let int2: UInt32 = 21
    static let int4: UInt32 = 23
    static let text: UInt32 = 25
    static let oid: UInt32 = 26
    static let json: UInt32 = 114
    static let float4: UInt32 = 700
    static let float8: UInt32 = 701
    static let unknown: UInt32 = 705
    static let bpchar: UInt32 = 1042
    static let varchar: UInt32 = 1043
    static let date: UInt32 = 1082
    static let timestamp: UInt32 = 1114
    static let timestamptz: UInt32 = 1184
    static let interval: UInt32 = 1186
    static let numeric: UInt32 = 1700
    static let uuid: UInt32 = 2950
    static let jsonb: UInt32 = 3802

    private static let names: [UInt32: String] = [
        bool: "boolean", bytea: "bytea", char: "\"char\"", name: "name", int8: "bigint", int2: "smallint",
        int4: "integer", text: "text", oid: "oid", json: "json", float4: "real", float8: "double precision",
        unknown: "unknown", bpchar: "character", varchar: "character varying", date: "date",
        timestamp: "timestamp without time zone", timestamptz: "timestamp with time zone", interval: "interval",
        numeric: "numeric",
        uuid: "uuid", jsonb: "jsonb",
    ]

    /// The SQL name of a type LibPQ decodes; `nil` for any other OID.
    static func name(of oid: UInt32) -> String? { names[oid] }
}
