import LibPQ

/// Failed sign-ins slow down the next ones, per account name and per client address, in the
/// database every replica shares. The backoff is decided in SQL (`darkroom.sign_in_backoff`,
/// `dashboard_sessions.sql`); this asks it and reports outcomes.
struct SignInThrottle {
    let connection: PostgresConnection

    /// Seconds before `account` from `address` may try again; 0: now.
    func wait(account: String, address: String) throws -> Double {
        try connection.query("SELECT darkroom.sign_in_wait($1, $2) AS wait", [.text(account), .text(address)])[0][
            "wait"
        ].decode(Double.self)
    }

    /// Records the outcome; returns the wait that applies from now on.
    @discardableResult
    func record(account: String, address: String, succeeded: Bool) throws -> Double {
        try connection.query(
            "SELECT darkroom.record_sign_in($1, $2, $3) AS wait", [.text(account), .text(address), .bool(succeeded)])[
                0]["wait"]
            .decode(Double.self)
    }
}
