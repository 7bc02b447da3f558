import Foundation

/// A type that can be read from a value in PostgreSQL's text output format.
public protocol PostgresDecodable: Sendable {
    /// `nil` when `text` is not a valid value of this type.
    init?(postgresText text: String, typeOID: UInt32)
}

/// Why a cell could not be decoded, naming the column so the failing query is easy to find.
public struct PostgresDecodingError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Reason: Sendable, Equatable {
        case missingColumn
        case null
        case unparseable(String)
    }

    public var column: String
    public var columnIndex: Int?
    public var targetType: String
    public var reason: Reason

    public init(column: String, columnIndex: Int?, targetType: String, reason: Reason) {
        self.column = column
        self.columnIndex = columnIndex
        self.targetType = targetType
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .missingColumn:
            return "the result has no column \"\(column)\"; add it to the query's SELECT or RETURNING list"
        case .null:
            return "column \"\(column)\" is NULL but a \(targetType) was required; decode it as \(targetType)? or fix the data"
        case .unparseable(let text):
            let shown = text.count > 60 ? text.prefix(60) + "…" : text
            return "column \"\(column)\" holds \"\(shown)\", which is not a valid \(targetType)"
        }
    }
}

extension String: PostgresDecodable {
    public init?(postgresText text: String, typeOID: UInt32) { self = text }
}

extension Int64: PostgresDecodable {
    public init?(postgresText text: String, typeOID: UInt32) { self.init(text) }
}

extension Int: PostgresDecodable {
    public init?(postgresText text: String, typeOID: UInt32) { self.init(text) }
}

extension Int32: PostgresDecodable {
    public init?(postgresText text: String, typeOID: UInt32) { self.init(text) }
}

extension Double: PostgresDecodable {
    /// Accepts `float8`, `numeric` and integer text, and PostgreSQL's `NaN`/`Infinity`/`-Infinity`.
    public init?(postgresText text: String, typeOID: UInt32) {
        switch text {
        case "NaN": self = .nan
        case "Infinity": self = .infinity
        case "-Infinity": self = -.infinity
        default: self.init(text)
        }
    }
}

extension Bool: PostgresDecodable {
    public init?(postgresText text: String, typeOID: UInt32) {
        switch text {
        case "t", "true": self = true
        case "f", "false": self = false
        default: return nil
        }
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    private static let byteaOID: UInt32 = 17

    /// `bytea` arrives as `\x` followed by two hex digits per byte (`bytea_output=hex`, the
    /// default), or in the older escape format (`bytea_output=escape`): printable bytes as
    /// themselves, `\\` for a backslash and `\nnn` (octal) for the rest.
    public init?(postgresText text: String, typeOID: UInt32) {
        guard typeOID == Self.byteaOID else {
            self = Array(text.utf8)
            return
        }
        let utf8 = text.utf8
        guard utf8.starts(with: #"\x"#.utf8) else {
            guard let bytes = Self.unescape(Array(utf8)) else { return nil }
            self = bytes
            return
        }
        guard utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2 - 1)
        var high: UInt8?
        for character in utf8.dropFirst(2) {
            guard let nibble = Self.hexValue(character) else { return nil }
            if let pending = high {
                bytes.append(pending << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        self = bytes
    }

    private static func unescape(_ text: [UInt8]) -> [UInt8]? {
        let backslash = UInt8(ascii: "\\")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var index = 0
        while index < text.count {
            let byte = text[index]
            guard byte == backslash else {
                bytes.append(byte)
                index += 1
                continue
            }
            if index + 1 < text.count, text[index + 1] == backslash {
                bytes.append(backslash)
                index += 2
                continue
            }
            guard index + 3 < text.count else { return nil }
            var value = 0
            for digit in text[(index + 1)...(index + 3)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(digit) else { return nil }
                value = value * 8 + Int(digit - UInt8(ascii: "0"))
            }
            guard value <= 255 else { return nil }
            bytes.append(UInt8(value))
            index += 4
        }
        return bytes
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension Date: PostgresDecodable {
    /// Reads `timestamptz`, `timestamp` (as UTC) and `date` in `DateStyle=ISO`, set on connect.
    public init?(postgresText text: String, typeOID: UInt32) {
        guard let date = PostgresTimestamp.parse(text) else { return nil }
        self = date
    }
}

extension UUID: PostgresDecodable {
    public init?(postgresText text: String, typeOID: UInt32) { self.init(uuidString: text) }
}
