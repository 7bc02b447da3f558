import Foundation

/// A type that can be read from one non-NULL value of a result, by the value's type OID.
///
/// Results arrive in binary unless a query asks for text. Text (from such queries, or from text
/// columns) is also read by the scalar types whose spelling is unambiguous: integers, Double,
/// Bool, UUID. Dates and bytea are read only from binary, so no timestamp or hex parser exists.
public protocol PostgresDecodable: Sendable {
    init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason)
}

/// String-backed enums read their raw value from a textual column.
extension PostgresDecodable where Self: RawRepresentable, RawValue == String {
    public init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        let raw = try String(postgresValue: value)
        guard let decoded = Self(rawValue: raw) else { throw .unparseable(raw) }
        self = decoded
    }
}

extension String: PostgresDecodable {
    /// Textual types, anything fetched as text, and `numeric` (as PostgreSQL prints it, exact).
    public init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        if let text = try value.textual() {
            self = text
        } else if value.typeOID == PostgresOID.numeric {
            self = try PostgresNumeric(value.bytes).text
        } else {
            throw value.unsupported
        }
    }
}

extension Int64: PostgresDecodable {
    /// int2/int4/int8/oid, a whole `numeric`, or integer text.
    public init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        if let integer = try value.binaryInteger() {
            self = integer
        } else if value.format == .binary, value.typeOID == PostgresOID.numeric {
            let numeric = try PostgresNumeric(value.bytes)
            guard let integer = numeric.int64 else { throw .outOfRange(numeric.text) }
            self = integer
        } else if let text = try value.textual() {
            guard let integer = Int64(text) else { throw .unparseable(text) }
            self = integer
        } else {
            throw value.unsupported
        }
    }
}

extension Int: PostgresDecodable {
    public init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        let wide = try Int64(postgresValue: value)
        guard let narrow = Int(exactly: wide) else { throw .outOfRange(String(wide)) }
        self = narrow
    }
}

extension Int32: PostgresDecodable {
    public init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        let wide = try Int64(postgresValue: value)
        guard let narrow = Int32(exactly: wide) else { throw .outOfRange(String(wide)) }
        self = narrow
    }
}

extension Double: PostgresDecodable {
    /// float4/float8, any integer type, `numeric` (rounded to nearest), or number text including
    /// PostgreSQL's `NaN`/`Infinity`/`-Infinity`.
    public init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        if value.format == .binary, value.typeOID == PostgresOID.float8 {
            self = Double(bitPattern: try value.bigEndian(bytes: 8, of: "float8"))
        } else if value.format == .binary, value.typeOID == PostgresOID.float4 {
            self = Double(Float(bitPattern: UInt32(try value.bigEndian(bytes: 4, of: "float4"))))
        } else if value.format == .binary, value.typeOID == PostgresOID.numeric {
            self = try PostgresNumeric(value.bytes).double
        } else if let integer = try value.binaryInteger() {
            self = Double(integer)
        } else if let text = try value.textual() {
            switch text {
            case "NaN": self = .nan
            case "Infinity": self = .infinity
            case "-Infinity": self = -.infinity
            default:
                guard let number = Double(text) else { throw .unparseable(text) }
                self = number
            }
        } else {
            throw value.unsupported
        }
    }
}

extension Bool: PostgresDecodable {
    public init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        if value.format == .binary, value.typeOID == PostgresOID.bool {
            switch try value.bigEndian(bytes: 1, of: "boolean") {
            case 0: self = false
            case 1: self = true
            case let other: throw .malformed("boolean byte \(other)")
            }
        } else if let text = try value.textual() {
            switch text {
            case "t", "true": self = true
            case "f", "false": self = false
            default: throw .unparseable(text)
            }
        } else {
            throw value.unsupported
        }
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    /// `bytea` as its raw bytes; a textual value as its UTF-8 bytes. A bytea fetched as text
    /// is refused: it would be hex, and reading hex is what binary results are for avoiding.
    public init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        if value.typeOID == PostgresOID.bytea {
            guard value.format == .binary else { throw .fetchedAsText }
            self = Array(value.bytes)
        } else if let text = try value.textual() {
            self = Array(text.utf8)
        } else {
            throw value.unsupported
        }
    }
}

extension Date: PostgresDecodable {
    /// `timestamptz`, `timestamp` (taken as UTC) and `date` (midnight UTC), binary only;
    /// `infinity`/`-infinity` are `distantFuture`/`distantPast`.
    public init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        guard value.format == .binary else { throw .fetchedAsText }
        switch value.typeOID {
        case PostgresOID.timestamptz, PostgresOID.timestamp:
            let micros = Int64(bitPattern: try value.bigEndian(bytes: 8, of: "timestamp"))
            self = PostgresTimestamp.date(microseconds: micros)
        case PostgresOID.date:
            let days = Int32(truncatingIfNeeded: try value.bigEndian(bytes: 4, of: "date"))
            self = PostgresTimestamp.date(days: days)
        default:
            throw value.unsupported
        }
    }
}

extension UUID: PostgresDecodable {
    public init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        if value.format == .binary, value.typeOID == PostgresOID.uuid {
            guard value.bytes.count == 16 else { throw .malformed("uuid needs 16 bytes, got \(value.bytes.count)") }
            let b = Array(value.bytes)
            self = UUID(
                uuid: (
                    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                    b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
                ))
        } else if let text = try value.textual() {
            guard let uuid = UUID(uuidString: text) else { throw .unparseable(text) }
            self = uuid
        } else {
            throw value.unsupported
        }
    }
}

extension Duration: PostgresDecodable {
    /// `interval` (binary: microseconds, days, months) with days of 24 hours, as
    /// `extract(epoch FROM …)` counts them. Months have no fixed length, so an interval with
    /// months is refused; have the SQL convert it (`extract(epoch FROM …)` or `justify_*`).
    public init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        guard value.format == .binary, value.typeOID == PostgresOID.interval else {
            throw value.format == .text && value.typeOID == PostgresOID.interval ? .fetchedAsText : value.unsupported
        }
        guard value.bytes.count == 16 else { throw .malformed("interval needs 16 bytes, got \(value.bytes.count)") }
        let fields = value.bytes
        let micros = Int64(bitPattern: PostgresValue.bigEndian(fields.prefix(8)))
        let days = Int32(truncatingIfNeeded: PostgresValue.bigEndian(fields.dropFirst(8).prefix(4)))
        let months = Int32(truncatingIfNeeded: PostgresValue.bigEndian(fields.suffix(4)))
        guard months == 0 else {
            throw .outOfRange("an interval of \(months) month(s), \(days) day(s) and \(micros) µs")
        }
        self = .microseconds(micros) + .seconds(Int64(days) * 86_400)
    }
}
