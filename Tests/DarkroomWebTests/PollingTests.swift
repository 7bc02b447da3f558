import DarkroomTestSupport
import Foundation
import Testing

/// The one polling helper the process, socket and browser tests wait with.
@Suite struct PollingTests {
    @Test func eventuallyReturnsOnceTheConditionHolds() {
        var checks = 0
        let held = eventually(timeout: .seconds(60), every: .milliseconds(1)) {
            checks += 1
            return checks == 3
        }
        #expect(held)
        #expect(checks == 3, "checked until it held, and no more")
    }

    @Test func eventuallyGivesUpAtTheDeadline() {
        let start = ContinuousClock.now
        var checks = 0
        let held = eventually(timeout: .milliseconds(200), every: .milliseconds(50)) {
            checks += 1
            return false
        }
        let elapsed = ContinuousClock.now - start
        #expect(!held)
        #expect(elapsed >= .milliseconds(200), "waited the whole timeout: \(elapsed)")
        #expect(checks >= 2, "checked more than once: \(checks)")
    }

    @Test func eventuallyChecksOnceMoreAtTheDeadlineNotAWholeIntervalLater() {
        let start = ContinuousClock.now
        var checks = 0
        let held = eventually(timeout: .milliseconds(100), every: .seconds(60)) {
            checks += 1
            return checks == 2
        }
        #expect(held, "the check at the deadline counts")
        #expect(ContinuousClock.now - start < .seconds(30), "slept only until the deadline")
    }

    @Test func waitUntilNamesWhatItWaitedForAndWhatItSaw() throws {
        func sky() -> String { "; sky: still up" }
        let error = #expect(throws: WaitTimeout.self) {
            try waitUntil("the sky falls", timeout: .milliseconds(20), diagnostics: sky) { false }
        }
        #expect(error?.description == "timed out after 0.02 seconds waiting until the sky falls; sky: still up")
        try waitUntil("it holds", timeout: .seconds(60)) { true }
    }

    @Test func aConditionsErrorEndsTheWait() {
        struct Broken: Error {}
        #expect(throws: Broken.self) {
            try waitUntil("never", timeout: .seconds(60)) { throw Broken() }
        }
    }
}
