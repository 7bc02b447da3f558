import Testing
import Timing

@Suite("Backoff")
struct BackoffTests {
    let backoff = Backoff(first: .seconds(2), limit: .seconds(60), jitter: 0.25)

    @Test func withoutJitterTheDelayDoublesFromTheFirst() {
        let exact = Backoff(first: .seconds(2), limit: .seconds(1000), jitter: 0)
        let delays = (1...5).map { exact.delay(afterFailures: $0, randomUnit: 0.7) }
        #expect(delays == [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32)])
    }

    @Test("delays never shrink as failures grow", arguments: [0.0, 0.5, 1.0])
    func monotonic(randomUnit: Double) {
        let delays = (1...40).map { backoff.delay(afterFailures: $0, randomUnit: randomUnit) }
        #expect(zip(delays, delays.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(delays.first! < delays.last!)
    }

    @Test func delaysAreCappedEvenForHugeFailureCounts() {
        for failures in [6, 7, 10, 100, 5_000, Int.max] {
            #expect(backoff.delay(afterFailures: failures, randomUnit: 0) == .seconds(60), "failures \(failures)")
        }
    }

    @Test("jitter stays within [delay × (1 − jitter), delay]", arguments: 1...8)
    func jitterBounds(failures: Int) {
        let full = backoff.delay(afterFailures: failures, randomUnit: 0)
        let lowest = backoff.delay(afterFailures: failures, randomUnit: 1)
        #expect(lowest == full * 0.75)
        for unit in stride(from: 0.0, through: 1.0, by: 0.125) {
            let delay = backoff.delay(afterFailures: failures, randomUnit: unit)
            #expect(delay >= lowest && delay <= full, "unit \(unit)")
        }
    }

    @Test func outOfRangeRandomUnitsAreClamped() {
        #expect(backoff.delay(afterFailures: 3, randomUnit: -5) == backoff.delay(afterFailures: 3, randomUnit: 0))
        #expect(backoff.delay(afterFailures: 3, randomUnit: 7) == backoff.delay(afterFailures: 3, randomUnit: 1))
    }

    @Test func failureCountsBelowOneCountAsTheFirst() {
        #expect(backoff.delay(afterFailures: 0, randomUnit: 0) == .seconds(2))
        #expect(backoff.delay(afterFailures: -3, randomUnit: 0) == .seconds(2))
    }

    @Test func waitsGrowUntilResetAndDrawTheirChanceFromTheSource() {
        let draws = [1.0, 0.0, 0.5]
        let counter = Counter()
        let random = RandomUnit { draws[counter.next() % draws.count] }
        var waits = BackoffWaits(backoff)
        let run = (0..<3).map { _ in waits.next(randomUnit: random.next()) }
        #expect(run == [.seconds(1.5), .seconds(4), .seconds(7)])
        #expect(waits.failures == 3)
        waits.reset()
        #expect(waits.next(randomUnit: RandomUnit.fixed(0).next()) == .seconds(2))
    }

    @Test func theSystemSourceStaysWithinZeroAndOne() {
        #expect((0..<1000).allSatisfy { _ in (0...1).contains(RandomUnit.system.next()) })
    }

    @Test func durationsBecomeTheNumbersSQLAndTimeoutsTake() {
        #expect(Duration.milliseconds(1500).seconds == 1.5)
        #expect(Duration.microseconds(2500).milliseconds == 2.5)
        #expect(Duration.microseconds(1).wholeMillisecondsRoundedUp == 1, "a timeout is never shorter than asked")
        #expect(Duration.seconds(2).wholeMillisecondsRoundedUp == 2000)
        #expect(Duration.seconds(-1).wholeMillisecondsRoundedUp == 0)
        #expect(Duration.milliseconds(3).nanoseconds == 3_000_000)
    }
}

/// Hands out 0, 1, 2, … (a test's draws in order).
private final class Counter: @unchecked Sendable {
    private var value = -1
    func next() -> Int {
        value += 1
        return value
    }
}
