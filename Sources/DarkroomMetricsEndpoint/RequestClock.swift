/// Which deadline a connection is under, as a value: the events of one connection go in, the
/// instant by which the next must happen comes out (nil: none, the server is answering). The
/// deadline's owner closes the connection when it passes; this decides nothing about I/O.
public struct RequestClock<Instant: Comparable & Sendable>: Sendable {
    public enum Phase: Sendable, Equatable {
        /// Open with no request under way: the idle timeout runs.
        case idle
        /// A request's first bytes arrived; its head has not: the header timeout runs.
        case readingHead
        /// The head arrived, the end has not: the body timeout runs.
        case readingBody
        /// The request is complete; the server answers on its own time.
        case responding
    }

    public private(set) var phase: Phase = .idle
    public private(set) var deadline: Instant?
    let limits: ServerLimits
    let advance: @Sendable (Instant, Duration) -> Instant

    /// `advance(instant, duration)`: the instant `duration` after `instant` (the clock is injected).
    public init(limits: ServerLimits, opened now: Instant, advance: @escaping @Sendable (Instant, Duration) -> Instant)
    {
        self.limits = limits
        self.advance = advance
        deadline = advance(now, limits.idleTimeout)
    }

    /// Bytes arrived. Those of a request pipelined behind one being answered wait with it.
    public mutating func bytesArrived(at now: Instant) {
        guard phase == .idle else { return }
        phase = .readingHead
        deadline = advance(now, limits.headerTimeout)
    }

    public mutating func headArrived(at now: Instant) {
        phase = .readingBody
        deadline = advance(now, limits.bodyTimeout)
    }

    public mutating func requestEnded() {
        phase = .responding
        deadline = nil
    }

    public mutating func responseEnded(at now: Instant) {
        phase = .idle
        deadline = advance(now, limits.idleTimeout)
    }

    /// Whether the connection is past its deadline at `now`.
    public func isExpired(at now: Instant) -> Bool {
        deadline.map { now >= $0 } ?? false
    }
}
