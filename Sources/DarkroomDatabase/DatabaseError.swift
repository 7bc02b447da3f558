internal import LibPQ

/// What PostgreSQL or libpq reported, as the modules above see it: whether a new connection
/// may help, the server's SQLSTATE for logs, and its words. The decisions that read the server's
/// fields (a unique violation, a refused value) are this module's, on `postgres`.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// Stable: callers decide on it (or on `isConnectionFailure`), never on the message.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The connection could not be opened.
        case connectionFailed = "postgres_connection_failed"
        /// The connection broke while a command was in flight; the command's outcome is unknown.
        case connectionLost = "postgres_connection_lost"
        /// The server refused the command; the connection is still usable.
        case queryFailed = "postgres_query_failed"
        /// The server answered with something this module does not read.
        case unexpectedResult = "postgres_unexpected_result"
        /// A bound value cannot be sent; nothing was sent to the server.
        case invalidParameter = "postgres_invalid_parameter"
    }

    /// libpq's report, with the server's fields apart.
    let postgres: PostgresError

    init(_ postgres: PostgresError) { self.postgres = postgres }

    public var code: Code {
        switch postgres.code {
        case .connectionFailed: .connectionFailed
        case .connectionLost: .connectionLost
        case .queryFailed: .queryFailed
        case .unexpectedResult: .unexpectedResult
        case .invalidParameter: .invalidParameter
        }
    }

    /// The server's SQLSTATE (five characters, e.g. "23505"), when the server refused.
    public var sqlState: String? { postgres.sqlState?.rawValue }
    public var message: String { postgres.message }
    public var detail: String? { postgres.detail }
    public var hint: String? { postgres.hint }

    /// True when retrying on a fresh connection may succeed: the connection broke, the server is
    /// shutting down or starting up, or any connection exception.
    public var isConnectionFailure: Bool { postgres.isConnectionFailure }

    public var description: String { postgres.description }

    /// `body`'s value; a `PostgresError` it throws becomes a `DatabaseError`, anything else
    /// (its own errors, a `DatabaseError` from inside) passes unchanged.
    static func mapping<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as PostgresError { throw DatabaseError(error) }
    }
}
