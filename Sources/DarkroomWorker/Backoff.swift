/// Exponential backoff with jitter, for reconnecting: a ceiling of 0.5 s doubling to 30 s,
/// and a wait between half the ceiling and the whole of it. The caller brings the chance
/// (`randomUnit` in 0...1), so the waits can be tested.
struct Backoff: Sendable, Hashable {
    /// Waits handed out since the last `reset`.
    private(set) var attempt = 0

    mutating func next(randomUnit: Double) -> Duration {
        let ceiling = min(30.0, 0.5 * Double(1 << min(attempt, 6)))
        attempt += 1
        let unit = min(max(randomUnit, 0), 1)
        return .milliseconds(Int((ceiling / 2 + unit * ceiling / 2) * 1000))
    }

    mutating func reset() { attempt = 0 }
}
