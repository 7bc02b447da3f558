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
    /// Sent as an ISO 8601 timestamp in UTC with microsecond precision.
    case timestamp(Date)
    /// A one-dimensional array, sent in binary: each element already in its type's binary
    /// form (`nil` for NULL). Use the typed helpers below.
    case array(elementOID: UInt32, arrayOID: UInt32, elements: [[UInt8]?])

    /// `text[]`.
    public static func textArray(_ values: [String?]) -> PostgresBind {
        .array(elementOID: 25, arrayOID: 1009, elements: values.map { $0.map { Array($0.utf8) } })
    }

    /// `bytea[]`: bytes unchanged, never hex-encoded.
    public static func byteaArray(_ values: [[UInt8]?]) -> PostgresBind {
        .array(elementOID: byteaOID, arrayOID: 1001, elements: values)
    }

    /// `int4[]`.
    public static func int32Array(_ values: [Int32?]) -> PostgresBind {
        .array(elementOID: 23, arrayOID: 1007, elements: values.map { $0.map { bigEndianBytes(UInt32(bitPattern: $0)) } })
    }

    /// `int8[]`.
    public static func int64Array(_ values: [Int64?]) -> PostgresBind {
        .array(elementOID: 20, arrayOID: 1016, elements: values.map { $0.map { bigEndianBytes(UInt64(bitPattern: $0)) } })
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
        var isBinary: Bool
    }

    static let byteaOID: UInt32 = 17

    var encoded: Encoded {
        switch self {
        case .null:
            return Encoded(typeOID: 0, bytes: nil, isBinary: false)
        case .text(let value):
            return Encoded(typeOID: 0, bytes: Array(value.utf8), isBinary: false)
        case .int(let value):
            return Encoded(typeOID: 0, bytes: Array(String(value).utf8), isBinary: false)
        case .double(let value):
            return Encoded(typeOID: 0, bytes: Array(Self.text(for: value).utf8), isBinary: false)
        case .bool(let value):
            return Encoded(typeOID: 0, bytes: Array((value ? "true" : "false").utf8), isBinary: false)
        case .bytes(let value):
            return Encoded(typeOID: Self.byteaOID, bytes: value, isBinary: true)
        case .timestamp(let value):
            return Encoded(typeOID: 0, bytes: Array(PostgresTimestamp.format(value).utf8), isBinary: false)
        case let .array(elementOID, arrayOID, elements):
            return Encoded(typeOID: arrayOID, bytes: Self.binaryArray(elementOID: elementOID, elements), isBinary: true)
        }
    }

    /// PostgreSQL's binary array format (array_recv): dimensions, a has-NULLs flag, the
    /// element type, then per dimension its length and lower bound (1), then each element as
    /// a length (-1 for NULL) and its bytes. Every integer is big-endian.
    private static func binaryArray(elementOID: UInt32, _ elements: [[UInt8]?]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + ($1?.count ?? 0) })
        bytes += bigEndianBytes(UInt32(1))
        bytes += bigEndianBytes(UInt32(elements.contains { $0 == nil } ? 1 : 0))
        bytes += bigEndianBytes(elementOID)
        bytes += bigEndianBytes(UInt32(elements.count))
        bytes += bigEndianBytes(UInt32(1))
        for element in elements {
            guard let element else {
                bytes += bigEndianBytes(UInt32(bitPattern: -1))
                continue
            }
            bytes += bigEndianBytes(UInt32(element.count))
            bytes += element
        }
        return bytes
    }

    static func bigEndianBytes<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
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
