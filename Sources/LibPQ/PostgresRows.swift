internal import CPostgres
import Foundation

/// One result column: its name, the OID of its type (e.g. 17 for `bytea`) and how it was sent.
public struct PostgresColumn: Sendable, Hashable {
    public var name: String
    public var typeOID: UInt32
    public var format: PostgresFormat
}

/// The rows of one command's result, copied out of libpq so they outlive the `PGresult`.
public struct PostgresRows: RandomAccessCollection, Sendable {
    public let columns: [PostgresColumn]
    /// Rows inserted, updated, deleted, ... by the command (0 for commands that report none).
    public let affectedRows: Int
    /// The server's command tag, e.g. "UPDATE 3".
    public let commandTag: String

    private let storage: CellStorage

    public var startIndex: Int { 0 }
    public let endIndex: Int

    public subscript(position: Int) -> PostgresRow {
        precondition(indices.contains(position), "row \(position) is out of range 0..<\(endIndex)")
        return PostgresRow(storage: storage, firstCell: position * columns.count)
    }

    /// Copies everything out of `result`; the caller still owns and clears it.
    init(copying result: OpaquePointer) {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        columns = (0..<Int32(columnCount)).map { index in
            PostgresColumn(
                name: String(cString: PQfname(result, index)), typeOID: PQftype(result, index),
                format: PostgresFormat(rawValue: PQfformat(result, index)) ?? .text)
        }
        // All values go into one buffer, sized up front: one allocation per result, not per cell.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(
            (0..<Int32(rowCount)).reduce(0) { total, row in
                (0..<Int32(columnCount)).reduce(total) { $0 + Int(PQgetlength(result, row, $1)) }
            })
        var cells: [Range<Int>?] = []
        cells.reserveCapacity(rowCount * columnCount)
        for row in 0..<Int32(rowCount) {
            for column in 0..<Int32(columnCount) {
                guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) else {
                    cells.append(nil)
                    continue
                }
                let length = Int(PQgetlength(result, row, column))
                let start = bytes.count
                value.withMemoryRebound(to: UInt8.self, capacity: length) {
                    bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
                }
                cells.append(start..<bytes.count)
            }
        }
        storage = CellStorage(ColumnLayout(columns), bytes: bytes, cells: cells)
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

/// Every value of one result, row-major, shared by its rows.
final class CellStorage: Sendable {
    let layout: ColumnLayout
    let bytes: [UInt8]
    /// Where each cell's value lies in `bytes`; `nil` is SQL NULL.
    let cells: [Range<Int>?]

    init(_ layout: ColumnLayout, bytes: [UInt8], cells: [Range<Int>?]) {
        self.layout = layout
        self.bytes = bytes
        self.cells = cells
    }
}

/// One row; read a column by name (`row["id"]`) or position (`row[0]`).
public struct PostgresRow: Sendable {
    fileprivate let storage: CellStorage
    fileprivate let firstCell: Int

    public var columns: [PostgresColumn] { storage.layout.columns }

    /// A column that the query did not return yields a cell whose getters return `nil`
    /// and whose `decode` throws `.missingColumn`.
    public subscript(name: String) -> PostgresCell {
        guard let index = storage.layout.indexByName[name] else {
            return PostgresCell(columnName: name, columnIndex: nil, typeOID: 0, value: nil)
        }
        return self[index]
    }

    public subscript(index: Int) -> PostgresCell {
        precondition(columns.indices.contains(index), "column \(index) is out of range 0..<\(columns.count)")
        let column = columns[index]
        let value = storage.cells[firstCell + index].map { range in
            PostgresValue(typeOID: column.typeOID, format: column.format, bytes: storage.bytes[range])
        }
        return PostgresCell(columnName: column.name, columnIndex: index, typeOID: column.typeOID, value: value)
    }
}
