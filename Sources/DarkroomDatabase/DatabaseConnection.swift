internal import LibPQ

/// A connection to darkroom's database, which the modules above open and hand to this module's
/// stores. It sends nothing of theirs: it has no public method that takes SQL, and this module
/// imports LibPQ internally, so no public declaration can hand libpq out. Inside the module its
/// statements are `Query` values, each a file of `SQL/` (`Query.swift`).
///
/// Not `Sendable`: libpq connections must not be used from two threads at once, so give each
/// thread its own connection.
public final class DatabaseConnection {
    /// The libpq connection; it never leaves this module.
    let postgres: PostgresConnection

    /// Opens a connection from a URI (`postgresql://user@host:port/db`) or `key=value` string.
    /// Throws a `DatabaseError`; a password in `url` never appears in it.
    public init(_ url: String) throws {
        postgres = try DatabaseError.mapping { try PostgresConnection(url) }
    }

    /// False once the connection has broken (a new one is needed).
    public var isConnected: Bool { postgres.isConnected }

    /// Sends one statement of `SQL/`.
    func query(_ query: Query, _ binds: [PostgresBind] = []) throws -> PostgresRows {
        try DatabaseError.mapping { try postgres.query(query.sql, binds) }
    }

    /// Sends one or more `;`-separated statements of `SQL/` without parameters, as one implicit
    /// transaction (migrations and definitions).
    func execute(_ script: Query) throws {
        try DatabaseError.mapping { try postgres.execute(script.sql) }
    }

    /// Sends an operator script's statement (a file of `Jobs/`, read by DarkroomOperatorScripts)
    /// with its values bound as text, results as text: printed, never decoded.
    func query(operatorStatement statement: String, _ values: [String]) throws -> PostgresRows {
        try DatabaseError.mapping { try postgres.query(statement, values.map(PostgresBind.text), resultFormat: .text) }
    }

    /// Runs `body` in a transaction (a savepoint inside another): COMMIT when it returns,
    /// ROLLBACK when it throws.
    func withTransaction<T>(_ body: () throws -> T) throws -> T {
        try DatabaseError.mapping { try postgres.withTransaction(body) }
    }

    func listen(_ channel: String) throws {
        try DatabaseError.mapping { try postgres.listen(channel) }
    }

    func waitForNotification(timeout: Duration) throws -> [PostgresNotification] {
        try DatabaseError.mapping { try postgres.waitForNotification(timeout: timeout) }
    }
}

extension Migrator {
    /// Whether `darkroom migrate` has created the schema on `connection`'s database.
    public static func schemaExists(on connection: DatabaseConnection) throws -> Bool {
        try connection.query(.schemaReady)[0]["ready"].decode(Bool.self)
    }
}

extension JobQueue {
    /// Subscribes `connection` to the queue's wake-ups (`notificationChannel`); wait for them
    /// with `waitForJobs`. Workers hold one such connection each.
    public static func listenForJobs(on connection: DatabaseConnection) throws {
        try connection.listen(notificationChannel)
    }

    /// Waits up to `timeout` on a connection `listenForJobs` subscribed; whether jobs arrived.
    public static func waitForJobs(on connection: DatabaseConnection, timeout: Duration) throws -> Bool {
        try !connection.waitForNotification(timeout: timeout).isEmpty
    }
}
