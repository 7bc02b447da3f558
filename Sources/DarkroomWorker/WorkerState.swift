import DarkroomDatabase
import Foundation
import Timing

/// What the worker's threads share: the tally, the stop flag, the wake-up signal and the jobs
/// in hand. Everything is read and written under `condition`.
final class WorkerState: @unchecked Sendable {
    private let condition = NSCondition()
    private var summary = WorkerSummary()
    private var stopping = false
    private var wakeups = 0
    private var running: [Int64: RunningJob] = [:]
    /// Told how many jobs are in hand each time that changes, under the lock, so the counts it
    /// sees arrive in order.
    private let jobsInHandChanged: @Sendable (Int) -> Void

    init(jobsInHandChanged: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.jobsInHandChanged = jobsInHandChanged
    }

    func record(_ outcome: JobOutcome) {
        condition.lock()
        defer { condition.unlock() }
        summary.record(outcome)
    }

    var tally: WorkerSummary {
        condition.lock()
        defer { condition.unlock() }
        return summary
    }

    var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    // MARK: Jobs in hand

    /// Puts a job in hand. `make` gets the render threads of the jobs already in hand, under the
    /// lock, so two slots starting jobs at once see each other.
    func start(_ make: (_ threadsInUse: Int) -> RunningJob) -> RunningJob {
        condition.lock()
        defer { condition.unlock() }
        let job = make(running.values.reduce(0) { $0 + $1.threads })
        running[job.job.id] = job
        jobsInHandChanged(running.count)
        return job
    }

    func finished(_ job: RunningJob) {
        condition.lock()
        running[job.job.id] = nil
        jobsInHandChanged(running.count)
        condition.broadcast()
        condition.unlock()
    }

    var runningJobs: [RunningJob] {
        condition.lock()
        defer { condition.unlock() }
        return Array(running.values)
    }

    /// The jobs in hand whose attempt is not over.
    var unfinishedJobs: [RunningJob] { runningJobs.filter { !$0.isFinished } }

    // MARK: Waiting

    /// A job was inserted (NOTIFY): wake every idle slot.
    func wake() {
        condition.lock()
        wakeups += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until woken, stopped, or `timeout` passes.
    func waitForWork(timeout: Duration) {
        condition.lock()
        defer { condition.unlock() }
        let seen = wakeups
        let deadline = Date().addingTimeInterval(timeout.seconds)
        while wakeups == seen, !stopping {
            if !condition.wait(until: deadline) { break }
        }
    }

    /// Sleeps up to `duration`, returning early when stopped.
    func pause(_ duration: Duration) {
        sleep(duration, returnEarlyOnStop: true)
    }

    func sleep(_ duration: Duration, returnEarlyOnStop: Bool) {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(duration.seconds)
        while !(returnEarlyOnStop && stopping) {
            if !condition.wait(until: deadline) { break }
        }
    }
}
