import Foundation

/// A value bound to a `$n` placeholder. Values travel separately from the SQL text, so they are
/// never parsed as SQL.
public enum PostgresBind: Sendable, Hashable {
    case null
    case text(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    /// Sent in binary as `bytea`, so arbitrary bytes (including NUL) arrive unchanged.
    case bytes([UInt8])
    /// Sent in binary as `timestamptz`, rounded to the microsecond; `distantFuture` and
    /// `distantPast` are `infinity` and `-infinity`, as they decode. In a `timestamp` (without
    /// time zone) context the server converts it through the session's TimeZone.
    case timestamp(Date)
    /// Sent in binary as `uuid`.
    case uuid(UUID)
    /// A one-dimensional array, sent in binary: each element already in its type's binary
    /// form (`nil` for NULL). Use the typed helpers below.
    case array(elementOID: UInt32, arrayOID: UInt32, elements: [[UInt8]?])

    /// `text[]`.
    public static func textArray(_ values: [String?]) -> PostgresBind {
        .array(elementOID: PostgresOID.text, arrayOID: 1009, elements: values.map { $0.map { Array($0.utf8) } })
    }

    /// `bytea[]`: bytes unchanged, never hex-encoded.
    public static func byteaArray(_ values: [[UInt8]?]) -> PostgresBind {
        .array(elementOID: PostgresOID.bytea, arrayOID: 1001, elements: values)
    }

    /// `int4[]`.
    public static func int32Array(_ values: [Int32?]) -> PostgresBind {
        .array(
            elementOID: PostgresOID.int4, arrayOID: 1007,
            elements: values.map { $0.map { bigEndian(UInt32(bitPattern: $0)) } })
    }

    /// `int8[]`.
    public static func int64Array(_ values: [Int64?]) -> PostgresBind {
        .array(
            elementOID: PostgresOID.int8, arrayOID: 1016,
            elements: values.map { $0.map { bigEndian(UInt64(bitPattern: $0)) } })
    }

    /// `nil` becomes `.null`.
    public static func optional<Value>(_ value: Value?, _ bind: (Value) -> PostgresBind) -> PostgresBind {
        value.map(bind) ?? .null
    }
}

extension PostgresBind: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension PostgresBind {
    /// The wire form libpq wants for one parameter.
    struct Encoded {
        /// Type OID; 0 lets the server infer the type from context, as it does for a quoted literal.
        var typeOID: UInt32
        /// `nil` for SQL NULL. Text values carry no terminator; the caller adds one.
        var bytes: [UInt8]?
        var format: PostgresFormat
    }

    /// Numbers and booleans go as text with no type, so the server types them from context as
    /// it does a quoted literal: a binary value must name its type, and an int8 where a function
    /// takes an int4 (`pg_terminate_backend($1)`) would no longer resolve. Their text is short
    /// and exact (Swift prints the shortest Double that reads back). Bytes, instants and UUIDs
    /// go in binary under their own type.
    func encoded() throws -> Encoded {
        switch self {
        case .null:
            return Encoded(typeOID: 0, bytes: nil, format: .text)
        case .text(let value):
            return Encoded(typeOID: 0, bytes: Array(value.utf8), format: .text)
        case .int(let value):
            return Encoded(typeOID: 0, bytes: Array(String(value).utf8), format: .text)
        case .double(let value):
            return Encoded(typeOID: 0, bytes: Array(Self.text(for: value).utf8), format: .text)
        case .bool(let value):
            return Encoded(typeOID: 0, bytes: Array((value ? "true" : "false").utf8), format: .text)
        case .bytes(let value):
            return Encoded(typeOID: PostgresOID.bytea, bytes: value, format: .binary)
        case .timestamp(let value):
            guard let micros = PostgresTimestamp.microseconds(value) else {
                throw PostgresError(
                    code: .invalidParameter,
                    message:
                        "cannot bind Date(timeIntervalSinceReferenceDate: \(value.timeIntervalSinceReferenceDate)): a timestamptz is a finite instant between 4713 BC and 294276 AD; bind a date in that range"
                )
            }
            return Encoded(
                typeOID: PostgresOID.timestamptz, bytes: Self.bigEndian(UInt64(bitPattern: micros)), format: .binary)
        case .uuid(let value):
            return Encoded(
                typeOID: PostgresOID.uuid, bytes: withUnsafeBytes(of: value.uuid) { Array($0) }, format: .binary)
        case .array(let elementOID, let arrayOID, let elements):
            return Encoded(
                typeOID: arrayOID, bytes: Self.binaryArray(elementOID: elementOID, elements), format: .binary)
        }
    }

    /// PostgreSQL's binary array format (array_recv): dimensions, a has-NULLs flag, the
    /// element type, then per dimension its length and lower bound (1), then each element as
    /// a length (-1 for NULL) and its bytes. Every integer is big-endian.
    private static func binaryArray(elementOID: UInt32, _ elements: [[UInt8]?]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + ($1?.count ?? 0) })
        bytes += bigEndian(UInt32(1))
        bytes += bigEndian(UInt32(elements.contains { $0 == nil } ? 1 : 0))
        bytes += bigEndian(elementOID)
        bytes += bigEndian(UInt32(elements.count))
        bytes += bigEndian(UInt32(1))
        for element in elements {
            guard let element else {
                bytes += bigEndian(UInt32(bitPattern: -1))
                continue
            }
            bytes += bigEndian(UInt32(element.count))
            bytes += element
        }
        return bytes
    }

    static func bigEndian<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// PostgreSQL spells the special values its own way; Swift's `description` of a finite
    /// Double is already the shortest text that reads back exactly.
    private static func text(for value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return value.description
    }
}
