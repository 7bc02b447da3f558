import Foundation

/// What the worker's threads share: the tally, the stop flag and the wake-up signal.
/// Everything is read and written under `condition`.
final class WorkerState: @unchecked Sendable {
    enum Outcome { case succeeded, failed, retried, leaseLost }

    private let condition = NSCondition()
    private var summary = WorkerSummary()
    private var stopping = false
    private var wakeups = 0

    func record(_ outcome: Outcome) {
        condition.lock()
        defer { condition.unlock() }
        switch outcome {
        case .succeeded: summary.succeeded += 1
        case .failed: summary.failed += 1
        case .retried: summary.retried += 1
        case .leaseLost: summary.leaseLost += 1
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
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(duration.seconds)
        while !stopping {
            if !condition.wait(until: deadline) { break }
        }
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
