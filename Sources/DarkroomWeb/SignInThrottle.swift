import DarkroomDatabase

/// Failed sign-ins slow down the next ones, per account name and per client address, in the
/// database every replica shares. The backoff is decided in SQL (`darkroom.sign_in_backoff`,
/// `dashboard_sessions.sql`); this asks it through `SignInRecords` and reports outcomes.
struct SignInThrottle {
    let connection: DatabaseConnection

    /// Seconds before `account` from `address` may try again; 0: now.
    func wait(account: String, address: String) throws -> Double {
        try SignInRecords(connection).wait(account: account, address: address)
    }

    /// Records the outcome; returns the wait that applies from now on.
    @discardableResult
    func record(account: String, address: String, succeeded: Bool) throws -> Double {
        try SignInRecords(connection).record(account: account, address: address, succeeded: succeeded)
    }
}
