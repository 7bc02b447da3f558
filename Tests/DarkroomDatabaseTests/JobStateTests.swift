import DarkroomDatabase
import DarkroomTestSupport
import Testing

@Suite("JobState transitions")
struct JobStateTests {
    /// Every allowed move, spelled out once more so a change to the rules is a deliberate one.
    static let allowed: Set<[JobState]> = [
        [.queued, .running], [.queued, .cancelled],
        [.running, .succeeded], [.running, .queued], [.running, .failed], [.running, .cancelled],
        [.failed, .queued], [.cancelled, .queued],
    ]

    @Test("exactly the documented transitions are allowed", arguments: JobState.allCases)
    func transitions(from state: JobState) {
        for next in JobState.allCases {
            #expect(state.canTransition(to: next) == Self.allowed.contains([state, next]), "\(state) → \(next)")
        }
    }

    @Test func succeededIsTerminal() {
        #expect(JobState.allCases.allSatisfy { !JobState.succeeded.canTransition(to: $0) })
    }

    @Test func noStateTransitionsToItself() {
        #expect(JobState.allCases.allSatisfy { !$0.canTransition(to: $0) })
    }

    @Test func onlyClaimingStartsAJob() {
        let intoRunning = JobState.allCases.filter { $0.canTransition(to: .running) }
        #expect(intoRunning == [.queued])
    }

    @Test func finishedStates() {
        #expect(JobState.allCases.filter(\.isFinished) == [.succeeded, .failed, .cancelled])
    }

    @Test func rawValuesMatchTheDatabase() {
        #expect(JobState.allCases.map(\.rawValue) == ["queued", "running", "succeeded", "failed", "cancelled"])
    }
}
