import DarkroomTestSupport
import Testing

/// The test executor the in-process servers run on.
@Suite struct DedicatedThreadsTests {
    /// A job that arrives after shutdown used to be dropped: its task never ran and its frame
    /// leaked. No threads at all, so that none can take the job before it sees the shutdown; a
    /// watchdog ends the wait for a job that never runs (a hang's guard, not a timing check).
    @Test func aJobEnqueuedAfterShutdownStillRuns() async {
        let threads = DedicatedThreads(count: 0, name: "dedicated-late")
        threads.shutdown()
        let (ran, report) = AsyncStream.makeStream(of: Int.self)
        Task(executorPreference: threads) { report.yield(42) }
        let watchdog = Task {
            try? await Task.sleep(for: .seconds(60))
            report.finish()
        }
        defer { watchdog.cancel() }
        var reports = ran.makeAsyncIterator()
        #expect(await reports.next() == 42, "the late job ran")
    }
}
