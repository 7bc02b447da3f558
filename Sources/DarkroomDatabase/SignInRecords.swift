internal import LibPQ

/// Sign-in attempts per account name and client address. How long a sign-in waits after
/// failures is decided in SQL (`darkroom.sign_in_backoff`); this asks it and reports outcomes.
public struct SignInRecords {
    let connection: DatabaseConnection

    public init(_ connection: DatabaseConnection) {
        self.connection = connection
    }

    /// Seconds before `account` from `address` may try again; 0: now.
    public func wait(account: String, address: String) throws -> Double {
        try connection.query(.signInWait, [.text(account), .text(address)])[0]["wait"].decode(Double.self)
    }

    /// Records the outcome; returns the wait that applies from now on.
    @discardableResult
    public func record(account: String, address: String, succeeded: Bool) throws -> Double {
        try connection.query(.recordSignIn, [.text(account), .text(address), .bool(succeeded)])[0]["wait"]
            .decode(Double.self)
    }
}
