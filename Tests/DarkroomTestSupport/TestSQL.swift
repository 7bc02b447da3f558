import LibPQ

@testable import DarkroomDatabase

/// Tests' own SQL, on the connection they hand the code under test: fixtures written and checks
/// read without going through it. Production code has no such door: `DatabaseConnection` sends
/// only DarkroomDatabase's statements. What these throw is what the stores throw, a
/// `DatabaseError`.
extension DatabaseConnection {
    public func query(_ sql: String, _ binds: [PostgresBind] = [], resultFormat: PostgresFormat = .binary) throws
        -> PostgresRows
    {
        try DatabaseError.mapping { try postgres.query(sql, binds, resultFormat: resultFormat) }
    }

    public func execute(_ sql: String) throws {
        try DatabaseError.mapping { try postgres.execute(sql) }
    }

    public func withTransaction<T>(_ body: () throws -> T) throws -> T {
        try DatabaseError.mapping { try postgres.withTransaction(body) }
    }

    public func quotedIdentifier(_ name: String) throws -> String {
        try DatabaseError.mapping { try postgres.quotedIdentifier(name) }
    }

    public func listen(_ channel: String) throws {
        try DatabaseError.mapping { try postgres.listen(channel) }
    }

    public func unlisten(_ channel: String) throws {
        try DatabaseError.mapping { try postgres.unlisten(channel) }
    }

    public func waitForNotification(timeout: Duration) throws -> [PostgresNotification] {
        try DatabaseError.mapping { try postgres.waitForNotification(timeout: timeout) }
    }

    /// Closes and re-opens the connection with the same parameters.
    public func reset() throws {
        try DatabaseError.mapping { try postgres.reset() }
    }

    /// The server process serving this connection.
    public var backendPID: Int32 { postgres.backendPID }

    public var transactionStatus: PostgresTransactionStatus { postgres.transactionStatus }

    public var onNotice: ((PostgresNotice) -> Void)? {
        get { postgres.onNotice }
        set { postgres.onNotice = newValue }
    }
}

extension DatabaseError {
    /// libpq's report, for tests that check the server's fields.
    public var postgresError: PostgresError { postgres }
}

extension DatabaseError {
    /// A failure as libpq would report it, for tests that cause one without a server.
    public init(reporting postgres: PostgresError) {
        self.init(postgres)
    }
}
