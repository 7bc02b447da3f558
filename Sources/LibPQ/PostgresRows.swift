internal import CPostgres
import Foundation

/// One result column: its name and the OID of its type (e.g. 17 for `bytea`).
public struct PostgresColumn: Sendable, Hashable {
    public var name: String
    public var typeOID: UInt32
}

/// The rows of one command's result, copied out of libpq so they outlive the `PGresult`.
public struct PostgresRows: RandomAccessCollection, Sendable {
    public let columns: [PostgresColumn]
    /// Rows inserted, updated, deleted, ... by the command (0 for commands that report none).
    public let affectedRows: Int
    /// The server's command tag, e.g. "UPDATE 3".
    public let commandTag: String

    private let layout: ColumnLayout
    /// Row-major text values; `nil` is SQL NULL.
    private let cells: [String?]

    public var startIndex: Int { 0 }
    public let endIndex: Int

    public subscript(position: Int) -> PostgresRow {
        precondition(indices.contains(position), "row \(position) is out of range 0..<\(endIndex)")
        let start = position * columns.count
        return PostgresRow(layout: layout, values: cells[start ..< start + columns.count])
    }

    /// Copies everything out of `result`; the caller still owns and clears it.
    init(copying result: OpaquePointer) {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        columns = (0 ..< columnCount).map { index in
            PostgresColumn(name: String(cString: PQfname(result, Int32(index))), typeOID: PQftype(result, Int32(index)))
        }
        layout = ColumnLayout(columns)
        var cells: [String?] = []
        cells.reserveCapacity(rowCount * columnCount)
        for row in 0 ..< Int32(rowCount) {
            for column in 0 ..< Int32(columnCount) {
                if PQgetisnull(result, row, column) != 0 {
                    cells.append(nil)
                } else {
                    let length = Int(PQgetlength(result, row, column))
                    let value = UnsafeRawPointer(PQgetvalue(result, row, column)!).assumingMemoryBound(to: UInt8.self)
                    cells.append(String(decoding: UnsafeBufferPointer(start: value, count: length), as: UTF8.self))
                }
            }
        }
        self.cells = cells
        endIndex = rowCount
        commandTag = PQcmdStatus(result).map { String(cString: $0) } ?? ""
        affectedRows = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
    }
}

/// Column names and types shared by every row of one result.
final class ColumnLayout: Sendable {
    let columns: [PostgresColumn]
    let indexByName: [String: Int]

    init(_ columns: [PostgresColumn]) {
        self.columns = columns
        // The first of several same-named columns wins, as in psql's `\gset`.
        indexByName = Dictionary(columns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// One row; read a column by name (`row["id"]`) or position (`row[0]`).
public struct PostgresRow: Sendable {
    fileprivate let layout: ColumnLayout
    fileprivate let values: ArraySlice<String?>

    fileprivate init(layout: ColumnLayout, values: ArraySlice<String?>) {
        self.layout = layout
        self.values = values
    }

    public var columns: [PostgresColumn] { layout.columns }

    /// A column that the query did not return yields a cell whose getters return `nil`
    /// and whose `decode` throws `.missingColumn`.
    public subscript(name: String) -> PostgresCell {
        guard let index = layout.indexByName[name] else {
            return PostgresCell(columnName: name, columnIndex: nil, typeOID: 0, text: nil)
        }
        return self[index]
    }

    public subscript(index: Int) -> PostgresCell {
        precondition(layout.columns.indices.contains(index), "column \(index) is out of range 0..<\(layout.columns.count)")
        let column = layout.columns[index]
        return PostgresCell(columnName: column.name, columnIndex: index, typeOID: column.typeOID, text: values[values.startIndex + index])
    }
}

/// One value of a row, in PostgreSQL's text format, with typed getters.
public struct PostgresCell: Sendable {
    public let columnName: String
    /// `nil` when the row has no column of that name.
    public let columnIndex: Int?
    public let typeOID: UInt32
    /// The text PostgreSQL sent, or `nil` for NULL.
    public let text: String?

    public var isNull: Bool { text == nil }

    public var string: String? { value(String.self) }
    public var int64: Int64? { value(Int64.self) }
    public var int: Int? { value(Int.self) }
    public var double: Double? { value(Double.self) }
    public var bool: Bool? { value(Bool.self) }
    /// `bytea` decoded from its `\x` hex form; any other type gives its text's UTF-8 bytes.
    public var bytes: [UInt8]? { value([UInt8].self) }
    public var date: Date? { value(Date.self) }
    public var uuid: UUID? { value(UUID.self) }

    /// `nil` for NULL, a missing column, or text that is not a `T`.
    public func value<T: PostgresDecodable>(_ type: T.Type) -> T? {
        text.flatMap { T(postgresText: $0, typeOID: typeOID) }
    }

    /// The value, or an error naming the column when it is missing, NULL or not a `T`.
    public func decode<T: PostgresDecodable>(_ type: T.Type) throws -> T {
        guard let value = try decode(T?.self) else { throw failure(T.self, .null) }
        return value
    }

    /// `nil` for NULL; throws when the column is missing or its text is not a `T`.
    public func decode<T: PostgresDecodable>(_ type: T?.Type) throws -> T? {
        guard columnIndex != nil else { throw failure(T.self, .missingColumn) }
        guard let text else { return nil }
        guard let value = T(postgresText: text, typeOID: typeOID) else { throw failure(T.self, .unparseable(text)) }
        return value
    }

    private func failure(_ type: Any.Type, _ reason: PostgresDecodingError.Reason) -> PostgresDecodingError {
        PostgresDecodingError(column: columnName, columnIndex: columnIndex, targetType: String(describing: type), reason: reason)
    }
}
