import LibPQ

/// The connection the modules above hold and hand to this module's stores. They name it here
/// and do not import LibPQ, so no SQL of theirs reaches PostgreSQL: every statement is one of
/// this module's (`Tests/DarkroomDatabaseTests/SQLOwnershipTests.swift` checks the imports, and
/// that no other module calls the connection's statement-sending methods through this name).
public typealias DatabaseConnection = PostgresConnection

/// What PostgreSQL or libpq reported (`message`, `sqlState`, `isConnectionFailure`).
public typealias DatabaseError = PostgresError

extension Migrator {
    /// Whether `darkroom migrate` has created the schema on `connection`'s database.
    public static func schemaExists(on connection: PostgresConnection) throws -> Bool {
        try connection.query(.schemaReady)[0]["ready"].decode(Bool.self)
    }
}

extension JobQueue {
    /// Subscribes `connection` to the queue's wake-ups (`notificationChannel`); wait for them
    /// with `waitForJobs`. Workers hold one such connection each.
    public static func listenForJobs(on connection: PostgresConnection) throws {
        try connection.listen(notificationChannel)
    }

    /// Waits up to `timeout` on a connection `listenForJobs` subscribed; whether jobs arrived.
    public static func waitForJobs(on connection: PostgresConnection, timeout: Duration) throws -> Bool {
        try !connection.waitForNotification(timeout: timeout).isEmpty
    }
}
