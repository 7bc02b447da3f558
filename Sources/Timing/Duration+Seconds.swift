/// Durations as the numbers SQL, logs, metrics and timeouts take: the one place that reads
/// `Duration.components`.
extension Duration {
    /// Seconds, with their fraction.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Milliseconds, with their fraction.
    public var milliseconds: Double { seconds * 1000 }

    /// Whole milliseconds, rounded up (a timeout is never shorter than asked), 0 for negatives.
    public var wholeMillisecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return max(millis, 0)
    }

    /// Whole nanoseconds (swift-metrics' timers take them).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
