import Timing

extension Backoff {
    /// A failed job's next attempt: 5 s doubling to 10 minutes, up to a fifth of it taken off.
    public static let jobRetry = Backoff(first: .seconds(5), limit: .seconds(600), jitter: 0.2)
    /// Reconnecting to the database: 0.5 s doubling to 30 s, up to half of it taken off.
    static let reconnect = Backoff(first: .milliseconds(500), limit: .seconds(30), jitter: 0.5)
}
