import Synchronization

/// A value that is costly to compute and may be a little old: the overview's stale count walks
/// every asset's chain, and the overview refreshes every two seconds in every open browser.
/// Recomputed when older than `maxAge`; concurrent misses may both compute (the last one kept).
final class RecentValue<Value: Sendable>: Sendable {
    private let maxAge: Duration
    private let stored = Mutex<(value: Value, at: ContinuousClock.Instant)?>(nil)

    init(maxAge: Duration) {
        self.maxAge = maxAge
    }

    /// The stored value when it was computed within `maxAge` of `now`, else `compute()`'s.
    func value(now: ContinuousClock.Instant, compute: () throws -> Value) rethrows -> Value {
        if let kept = stored.withLock({ $0 }), now - kept.at < maxAge, kept.at <= now { return kept.value }
        let fresh = try compute()
        stored.withLock { $0 = (fresh, now) }
        return fresh
    }
}
