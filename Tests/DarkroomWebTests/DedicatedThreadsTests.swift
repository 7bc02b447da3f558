import DarkroomTestSupport
import Testing

/// The test executor the in-process servers run on.
@Suite struct DedicatedThreadsTests {
    /// A job that arrives after shutdown used to be dropped: its task never finished and its
    /// frame leaked. (The time limit turns that hang into a failure.)
    @Test(.timeLimit(.minutes(1))) func aJobEnqueuedAfterShutdownStillRuns() async {
        let threads = DedicatedThreads(count: 1, name: "dedicated-late")
        threads.shutdown()
        let value = await Task(executorPreference: threads) { 42 }.value
        #expect(value == 42)
    }
}
