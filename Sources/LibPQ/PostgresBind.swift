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
        }
    }

    /// PostgreSQL spells the special values its own way; Swift's `description` of a finite
    /// Double is already the shortest text that reads back exactly.
    private static func text(for value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return value.description
    }
}
