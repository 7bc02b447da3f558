internal import CPostgres

/// A failure reported by libpq or by the server, with the server's structured fields kept apart.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// Stable: callers decide on it (with `sqlState` for the server's own conditions), never on
    /// the message.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The connection could not be opened (or re-opened by `reset()`).
        case connectionFailed = "postgres_connection_failed"
        /// The connection broke while a command was in flight; the command's outcome is unknown.
        case connectionLost = "postgres_connection_lost"
        /// The server rejected the command; the connection is still usable.
        case queryFailed = "postgres_query_failed"
        /// The server answered with something this library does not handle (for example COPY).
        case unexpectedResult = "postgres_unexpected_result"
        /// A bound value cannot be sent (for example a NaN Date); nothing was sent to the server.
        case invalidParameter = "postgres_invalid_parameter"
    }

    public var code: Code
    /// The server's SQLSTATE, e.g. `.uniqueViolation` ("23505") or `.raiseException` ("P0001").
    public var sqlState: SQLState?
    /// "ERROR", "FATAL", ... (never localized).
    public var severity: String?
    public var message: String
    public var detail: String?
    public var hint: String?
    /// Where on the server the error arose, e.g. "PL/pgSQL function darkroom.enqueue_edit(...) line 9 at RAISE".
    public var serverContext: String?
    public var constraintName: String?
    /// The SQL that failed, for logs; never includes bound values.
    public var query: String?

    public init(
        code: Code, sqlState: SQLState? = nil, severity: String? = nil, message: String,
        detail: String? = nil, hint: String? = nil, serverContext: String? = nil,
        constraintName: String? = nil, query: String? = nil
    ) {
        self.code = code
        self.sqlState = sqlState
        self.severity = severity
        self.message = message
        self.detail = detail
        self.hint = hint
        self.serverContext = serverContext
        self.constraintName = constraintName
        self.query = query
    }

    /// True when retrying on a fresh connection may succeed: the connection broke, the server is
    /// shutting down or starting up, or any connection exception (class 08).
    public var isConnectionFailure: Bool {
        if code == .connectionFailed || code == .connectionLost { return true }
        guard let sqlState else { return false }
        return sqlState.errorClass == SQLState.connectionException.errorClass
            || [.adminShutdown, .crashShutdown, .cannotConnectNow].contains(sqlState)
    }

    /// What to do about it, for people, when the server gave no hint of its own.
    public var advice: String? {
        switch code {
        case .connectionFailed:
            "check that PostgreSQL is running and that the database URL (host, port, user, database) is right"
        case .connectionLost:
            "the connection broke; reconnect, and check whether the command took effect before repeating it"
        case .queryFailed: nil
        case .unexpectedResult, .invalidParameter: "the command cannot be sent or read as written; a bug in its caller"
        }
    }

    public var description: String {
        var text = sqlState.map { "\(severity ?? "ERROR") \($0): \(message)" } ?? "\(code.rawValue): \(message)"
        if let detail { text += " — detail: \(detail)" }
        if let hint { text += " — hint: \(hint)" } else if let advice { text += "; \(advice)" }
        if let query { text += " — query: \(query.count > 200 ? query.prefix(200) + "…" : query)" }
        return text
    }
}

extension PostgresError {
    /// Copies the diagnostic fields out of a failed result; the result stays owned by the caller.
    init(code: Code, result: OpaquePointer, fallbackMessage: String, query: String?) {
        func field(_ code: Character) -> String? {
            guard let value = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: value)
        }
        self.init(
            code: code,
            sqlState: field("C").map(SQLState.init(rawValue:)),
            severity: field("V"),
            message: field("M") ?? fallbackMessage,
            detail: field("D"),
            hint: field("H"),
            serverContext: field("W"),
            constraintName: field("n"),
            query: query
        )
    }
}

/// A NOTICE, WARNING or similar message the server sent alongside a command's result.
public struct PostgresNotice: Sendable, CustomStringConvertible {
    public var severity: String
    public var sqlState: SQLState?
    public var message: String
    public var detail: String?
    public var hint: String?

    init(result: OpaquePointer) {
        let error = PostgresError(code: .queryFailed, result: result, fallbackMessage: "", query: nil)
        severity = error.severity ?? "NOTICE"
        sqlState = error.sqlState
        message = error.message
        detail = error.detail
        hint = error.hint
    }

    public var description: String {
        "\(severity): \(message)" + (detail.map { " — detail: \($0)" } ?? "") + (hint.map { " — hint: \($0)" } ?? "")
    }
}
