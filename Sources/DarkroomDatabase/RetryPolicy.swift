/// What happens to a job after a failed attempt.
public enum FailureOutcome: Sendable, Hashable {
    case retry(after: Duration)
    case fail
}

/// Exponential backoff with jitter: the delay doubles with every attempt up to `maxDelay`, and a
/// random share of it (up to `jitter`) is taken off so that jobs failing together spread out.
public struct RetryPolicy: Sendable, Hashable {
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// Between 0 (no randomness) and 1 (anywhere from zero to the full delay).
    public var jitter: Double

    public init(baseDelay: Duration = .seconds(5), maxDelay: Duration = .seconds(600), jitter: Double = 0.2) {
        precondition(baseDelay > .zero, "baseDelay must be positive")
        precondition(maxDelay >= baseDelay, "maxDelay must be at least baseDelay")
        precondition((0...1).contains(jitter), "jitter must be between 0 and 1")
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
    }

    public static let standard = RetryPolicy()

    /// The wait before the next attempt, after `attempt` attempts (1 for the first) have failed.
    /// `randomUnit` in 0...1 picks the point within the jitter range; pass `Double.random(in: 0...1)`.
    public func delay(afterAttempt attempt: Int, randomUnit: Double) -> Duration {
        // Doubles stay finite far beyond any real attempt count, and min() caps them anyway.
        let exponential = baseDelay.inSeconds * Double.pow2(max(attempt, 1) - 1)
        let capped = min(exponential, maxDelay.inSeconds)
        let unit = min(max(randomUnit, 0), 1)
        return .seconds(capped * (1 - jitter * unit))
    }

    /// Permanent failures and the last allowed attempt fail the job; anything else is retried.
    public func outcome(of failure: AttemptFailure, attempts: Int, maxAttempts: Int, randomUnit: Double)
        -> FailureOutcome
    {
        if failure.isPermanent || attempts >= maxAttempts { return .fail }
        return .retry(after: delay(afterAttempt: attempts, randomUnit: randomUnit))
    }
}

extension Duration {
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension Double {
    fileprivate static func pow2(_ exponent: Int) -> Double {
        Double(sign: .plus, exponent: min(exponent, 1023), significand: 1)
    }
}
