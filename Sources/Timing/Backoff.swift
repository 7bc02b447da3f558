/// Exponential backoff with jitter, for everything darkroom tries again: a failed job's next
/// attempt, a worker's reconnect to the database, a request to the object storage. The delay
/// doubles from `first` with every failure up to `limit`, and a random share of it (up to
/// `jitter`) is taken off, so that what failed together does not retry together.
public struct Backoff: Sendable, Hashable {
    public var first: Duration
    public var limit: Duration
    /// Between 0 (no randomness) and 1 (anywhere from zero to the full delay).
    public var jitter: Double

    public init(first: Duration, limit: Duration, jitter: Double) {
        precondition(first > .zero, "first must be positive")
        precondition(limit >= first, "limit must be at least first")
        precondition((0...1).contains(jitter), "jitter must be between 0 and 1")
        self.first = first
        self.limit = limit
        self.jitter = jitter
    }

    /// The wait after `failures` failures in a row (1 for the first; fewer count as 1).
    /// `randomUnit` in 0...1 picks the point within the jitter: 0 the full delay, 1 the
    /// shortest (`RandomUnit` draws it).
    public func delay(afterFailures failures: Int, randomUnit: Double) -> Duration {
        // Doubles stay finite far beyond any real failure count, and min() caps them anyway.
        let exponential = first.seconds * Double(sign: .plus, exponent: min(max(failures, 1) - 1, 1023), significand: 1)
        let capped = min(exponential, limit.seconds)
        let unit = min(max(randomUnit, 0), 1)
        return .seconds(capped * (1 - jitter * unit))
    }
}

/// A run of waits from one `Backoff`: each `next` waits longer, `reset` starts over (after a
/// success).
public struct BackoffWaits: Sendable, Hashable {
    public let backoff: Backoff
    /// Waits handed out since the last `reset`.
    public private(set) var failures = 0

    public init(_ backoff: Backoff) {
        self.backoff = backoff
    }

    public mutating func next(randomUnit: Double) -> Duration {
        failures += 1
        return backoff.delay(afterFailures: failures, randomUnit: randomUnit)
    }

    public mutating func reset() { failures = 0 }
}

/// Where chance comes from: a number in 0...1 per draw. Production draws from the system's
/// generator; tests pass their own, so every wait can be checked.
public struct RandomUnit: Sendable {
    private let draw: @Sendable () -> Double

    public init(_ draw: @escaping @Sendable () -> Double) {
        self.draw = draw
    }

    public static let system = RandomUnit { Double.random(in: 0...1) }

    /// Always `value`.
    public static func fixed(_ value: Double) -> RandomUnit { RandomUnit { value } }

    public func next() -> Double { draw() }
}
