/// Why a cell could not be decoded, naming the column so the failing query is easy to find.
public struct PostgresDecodingError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Reason: Error, Sendable, Equatable {
        /// The result has no column of that name.
        case missingColumn
        /// The value is NULL and a non-optional type was asked for.
        case null
        /// Text that does not spell a value of the target type (e.g. "abc" read as an Int).
        case unparseable(String)
        /// A type LibPQ knows that cannot become the target type (e.g. a timestamptz read as an Int).
        case typeMismatch
        /// A Date or bytea from a query that asked for text results; those are read from binary only.
        case fetchedAsText
        /// A type OID LibPQ does not decode at all (e.g. interval, arrays, a user-defined type).
        case unknownType
        /// Binary data that is not a valid value of its own type; says what was wrong.
        case malformed(String)
        /// A valid value that does not fit the target type (e.g. 2^40 read as an Int32); shows the value.
        case outOfRange(String)
    }

    public var column: String
    public var columnIndex: Int?
    public var targetType: String
    public var reason: Reason
    /// The column's type; 0 when the column is missing.
    public var typeOID: UInt32

    public init(column: String, columnIndex: Int?, targetType: String, reason: Reason, typeOID: UInt32 = 0) {
        self.column = column
        self.columnIndex = columnIndex
        self.targetType = targetType
        self.reason = reason
        self.typeOID = typeOID
    }

    public var description: String {
        let type = PostgresOID.name(of: typeOID).map { "\($0) (type OID \(typeOID))" } ?? "type OID \(typeOID)"
        switch reason {
        case .missingColumn:
            return "the result has no column \"\(column)\"; add it to the query's SELECT or RETURNING list"
        case .null:
            return
                "column \"\(column)\" is NULL but a \(targetType) was required; decode it as \(targetType)? or fix the data"
        case .unparseable(let text):
            let shown = text.count > 60 ? text.prefix(60) + "…" : text
            return "column \"\(column)\" holds \"\(shown)\", which is not a valid \(targetType)"
        case .typeMismatch:
            return
                "column \"\(column)\" is \(type), which cannot be read as \(targetType); decode it as a matching Swift type or cast it in SQL"
        case .fetchedAsText:
            return
                "column \"\(column)\" (\(type)) was fetched as text, and a \(targetType) is read only from binary results; run the query with resultFormat: .binary (the default)"
        case .unknownType:
            return
                "column \"\(column)\" has \(type), which LibPQ does not decode; cast it in SQL to a supported type (e.g. ::text, ::bigint, ::timestamptz)"
        case .malformed(let problem):
            return
                "column \"\(column)\" (\(type)) sent a malformed binary value (\(problem)); the server does not send that type the way LibPQ reads it"
        case .outOfRange(let value):
            return "column \"\(column)\" holds \(value), which does not fit in \(targetType); decode it as a wider type"
        }
    }
}
