import DarkroomDatabase
import Foundation
import Timing

/// What a worker did, and the exit code a scheduler should see.
public struct WorkerSummary: Sendable, CustomStringConvertible {
    public var succeeded = 0
    /// Jobs that ended `failed` in this run.
    public var failed = 0
    /// Attempts that failed and were put back in the queue for a later retry.
    public var retried = 0
    /// Results not recorded because the lease had expired or gone to another worker.
    public var leaseLost = 0
    /// Jobs an operator cancelled while this worker ran them; nothing was recorded.
    public var cancelled = 0
    /// Jobs given back to the queue unfinished at shutdown (their attempt not counted).
    public var released = 0
    public var elapsed: Duration = .zero

    public init() {}

    public var processed: Int { succeeded + failed + retried + leaseLost + cancelled + released }

    /// 0 when every job it ran succeeded (or was cancelled, or given back unfinished), 3 when
    /// some did not.
    public var exitCode: Int32 { failed + retried + leaseLost == 0 ? 0 : 3 }

    public var description: String {
        let seconds = elapsed.seconds
        let rate = seconds > 0 ? Double(succeeded + failed) / seconds : 0
        return "processed \(processed): \(succeeded) succeeded, \(failed) failed, \(retried) to retry"
            + (leaseLost > 0 ? ", \(leaseLost) lost their lease" : "")
            + (cancelled > 0 ? ", \(cancelled) cancelled" : "")
            + (released > 0 ? ", \(released) released at shutdown" : "")
            + String(format: " in %.1fs (%.2f jobs/s)", seconds, rate)
    }

    /// Counts one job's outcome.
    mutating func record(_ outcome: JobOutcome) {
        switch outcome {
        case .succeeded: succeeded += 1
        case .failed: failed += 1
        case .retried: retried += 1
        case .released(.shutdown): released += 1
        case .discarded(.cancelled): cancelled += 1
        // Not recorded, and the job runs again elsewhere: this run did not get it done.
        case .discarded, .abandoned: leaseLost += 1
        }
    }
}
