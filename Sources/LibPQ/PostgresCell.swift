import Foundation

/// One value of a row, with typed getters.
public struct PostgresCell: Sendable {
    public let columnName: String
    /// `nil` when the row has no column of that name.
    public let columnIndex: Int?
    public let typeOID: UInt32
    /// What the server sent, or `nil` for NULL (and for a missing column).
    public let value: PostgresValue?

    public var isNull: Bool { value == nil }

    public var string: String? { self.value(String.self) }
    public var int64: Int64? { self.value(Int64.self) }
    public var int: Int? { self.value(Int.self) }
    public var double: Double? { self.value(Double.self) }
    public var bool: Bool? { self.value(Bool.self) }
    /// `bytea` as its raw bytes; a textual value as its UTF-8 bytes.
    public var bytes: [UInt8]? { self.value([UInt8].self) }
    public var date: Date? { self.value(Date.self) }
    public var uuid: UUID? { self.value(UUID.self) }

    /// `nil` for NULL, a missing column, or a value that is not a `T`.
    public func value<T: PostgresDecodable>(_ type: T.Type) -> T? {
        try? decode(T?.self)
    }

    /// The value, or an error naming the column when it is missing, NULL or not a `T`.
    public func decode<T: PostgresDecodable>(_ type: T.Type) throws -> T {
        guard let decoded = try decode(T?.self) else { throw failure(T.self, .null) }
        return decoded
    }

    /// `nil` for NULL; throws when the column is missing or its value is not a `T`.
    public func decode<T: PostgresDecodable>(_ type: T?.Type) throws -> T? {
        guard columnIndex != nil else { throw failure(T.self, .missingColumn) }
        guard let value else { return nil }
        do {
            return try T(postgresValue: value)
        } catch {
            throw failure(T.self, error)
        }
    }

    private func failure(_ type: Any.Type, _ reason: PostgresDecodingError.Reason) -> PostgresDecodingError {
        PostgresDecodingError(
            column: columnName, columnIndex: columnIndex, targetType: String(describing: type),
            reason: reason, typeOID: typeOID)
    }
}
