/// A SQLSTATE: the server's five-character error code. Decisions name the condition, as
/// PostgreSQL's "Error Codes" appendix and postgres-nio's `PostgresError.Code` do, never the
/// digits; the raw value is for logs and for codes without a name here.
public struct SQLState: RawRepresentable, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// The class: the first two characters ("08" for every connection exception).
    public var errorClass: String { String(rawValue.prefix(2)) }

    public var description: String { rawValue }

    // Class 08: connection exception.
    public static let connectionException: SQLState = "08000"
    // Class 22: data exception.
    public static let nullValueNotAllowed: SQLState = "22004"
    public static let invalidParameterValue: SQLState = "22023"
    // Class 23: integrity constraint violation.
    public static let foreignKeyViolation: SQLState = "23503"
    public static let uniqueViolation: SQLState = "23505"
    public static let checkViolation: SQLState = "23514"
    // Class 25: invalid transaction state.
    public static let inFailedSQLTransaction: SQLState = "25P02"
    // Class 42: syntax error or access rule violation.
    public static let insufficientPrivilege: SQLState = "42501"
    // Class 54: program limit exceeded.
    public static let programLimitExceeded: SQLState = "54000"
    // Class 57: operator intervention.
    public static let queryCanceled: SQLState = "57014"
    public static let adminShutdown: SQLState = "57P01"
    public static let crashShutdown: SQLState = "57P02"
    public static let cannotConnectNow: SQLState = "57P03"
    // Class P0: PL/pgSQL error.
    public static let raiseException: SQLState = "P0001"
    public static let noDataFound: SQLState = "P0002"
}
