import DarkroomDatabase
import Foundation

/// What the worker's threads share: the tally, the stop flag, the wake-up signal and the jobs
/// in hand. Everything is read and written under `condition`.
final class WorkerState: @unchecked Sendable {
    enum Outcome { case succeeded, failed, retried, leaseLost, cancelled, released }

    private let condition = NSCondition()
    private var summary = WorkerSummary()
    private var stopping = false
    private var wakeups = 0
    private var running: [Int64: RunningJob] = [:]

    func record(_ outcome: Outcome) {
        condition.lock()
        defer { condition.unlock() }
        switch outcome {
        case .succeeded: summary.succeeded += 1
        case .failed: summary.failed += 1
        case .retried: summary.retried += 1
        case .leaseLost: summary.leaseLost += 1
        case .cancelled: summary.cancelled += 1
        case .released: summary.released += 1
        }
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

    func started(_ job: RunningJob) {
        condition.lock()
        running[job.job.id] = job
        condition.unlock()
    }

    func finished(_ job: RunningJob) {
        condition.lock()
        running[job.job.id] = nil
        condition.broadcast()
        condition.unlock()
    }

    var runningJobs: [RunningJob] {
        condition.lock()
        defer { condition.unlock() }
        return Array(running.values)
    }

    /// Waits until no job is in hand or `deadline` passes; true when none is left.
    func waitForRunningJobs(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !running.isEmpty {
            if !condition.wait(until: deadline) { return running.isEmpty }
        }
        return true
    }

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

/// A job a slot is working on. The heartbeat marks it lost when its lease is gone (cancelled,
/// expired, taken over); shutdown marks it released. Either way its result must not be written.
final class RunningJob: @unchecked Sendable {
    let job: ClaimedJob
    private let lock = NSLock()
    private var lost: (reason: String, cancelled: Bool)?

    init(_ job: ClaimedJob) { self.job = job }

    /// Why the job must not be recorded, or nil while it may be.
    var lossReason: (reason: String, cancelled: Bool)? { lock.withLock { lost } }

    func markLost(_ reason: String, cancelled: Bool) {
        lock.withLock { if lost == nil { lost = (reason, cancelled) } }
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
