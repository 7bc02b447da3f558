import DarkroomDatabase
import DarkroomTestSupport
import Testing

@Suite("RetryPolicy")
struct RetryPolicyTests {
    let policy = RetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(60), jitter: 0.25)

    @Test func withoutJitterTheDelayDoublesFromTheBase() {
        let exact = RetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(1000), jitter: 0)
        let delays = (1...5).map { exact.delay(afterAttempt: $0, randomUnit: 0.7) }
        #expect(delays == [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32)])
    }

    @Test("delays never shrink as attempts grow", arguments: [0.0, 0.5, 1.0])
    func monotonic(randomUnit: Double) {
        let delays = (1...40).map { policy.delay(afterAttempt: $0, randomUnit: randomUnit) }
        #expect(zip(delays, delays.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(delays.first! < delays.last!)
    }

    @Test func delaysAreCappedEvenForHugeAttemptCounts() {
        for attempt in [6, 7, 10, 100, 5_000, Int.max] {
            #expect(policy.delay(afterAttempt: attempt, randomUnit: 0) == .seconds(60), "attempt \(attempt)")
        }
    }

    @Test("jitter stays within [delay × (1 − jitter), delay]", arguments: 1...8)
    func jitterBounds(attempt: Int) {
        let full = policy.delay(afterAttempt: attempt, randomUnit: 0)
        let lowest = policy.delay(afterAttempt: attempt, randomUnit: 1)
        #expect(lowest == full * 0.75)
        for unit in stride(from: 0.0, through: 1.0, by: 0.125) {
            let delay = policy.delay(afterAttempt: attempt, randomUnit: unit)
            #expect(delay >= lowest && delay <= full, "unit \(unit)")
        }
    }

    @Test func outOfRangeRandomUnitsAreClamped() {
        #expect(policy.delay(afterAttempt: 3, randomUnit: -5) == policy.delay(afterAttempt: 3, randomUnit: 0))
        #expect(policy.delay(afterAttempt: 3, randomUnit: 7) == policy.delay(afterAttempt: 3, randomUnit: 1))
    }

    @Test func attemptsBelowOneCountAsTheFirst() {
        #expect(policy.delay(afterAttempt: 0, randomUnit: 0) == .seconds(2))
        #expect(policy.delay(afterAttempt: -3, randomUnit: 0) == .seconds(2))
    }

    @Test func transientFailuresAreRetriedUntilTheLastAttempt() {
        let failure = AttemptFailure.transient(code: "storage_io", message: "no space left")
        #expect(policy.outcome(of: failure, attempts: 1, maxAttempts: 3, randomUnit: 0) == .retry(after: .seconds(2)))
        #expect(policy.outcome(of: failure, attempts: 2, maxAttempts: 3, randomUnit: 0) == .retry(after: .seconds(4)))
        #expect(policy.outcome(of: failure, attempts: 3, maxAttempts: 3, randomUnit: 0) == .fail)
    }

    @Test func permanentFailuresAreNeverRetried() {
        let failure = AttemptFailure.permanent(code: "jpeg_corrupt", message: "bad Huffman table")
        #expect(policy.outcome(of: failure, attempts: 1, maxAttempts: 5, randomUnit: 0.5) == .fail)
    }
}
