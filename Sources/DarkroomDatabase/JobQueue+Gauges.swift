import Foundation
internal import LibPQ
import Timing

/// The reads `darkroom status` and the queue's gauges share, and the time limit a scrape puts
/// on each of them.
extension JobQueue {
    /// Jobs by state, as `darkroom.queue_summary` counts them (states with no row are absent).
    public func jobCounts() throws -> [JobState: Int] {
        var counts: [JobState: Int] = [:]
        for row in try connection.query(.readJobCounts) {
            counts[try row["state"].decode(StoredJobState.self).state] = try row["count"].decode(Int.self)
        }
        return counts
    }

    /// The queued job that has waited longest since it became due (`darkroom.oldest_queued`).
    public func oldestQueued() throws -> QueueStatus.WaitingJob? {
        try connection.query(.readOldestQueued).first.map { row in
            QueueStatus.WaitingJob(
                jobID: try row["job_id"].decode(Int64.self), runAt: try row["run_at"].decode(Date.self),
                age: .seconds(try row["age_seconds"].decode(Double.self)))
        }
    }

    /// Runs `body` in a transaction of its own in which each statement may take at most
    /// `timeout` (`SET LOCAL statement_timeout`: the limit ends with the transaction, whatever
    /// happens in it).
    public func withStatementTimeout<T>(_ timeout: Duration, _ body: () throws -> T) throws -> T {
        let milliseconds = max(timeout.wholeMillisecondsRoundedUp, 1)
        return try connection.withTransaction {
            _ = try connection.query(.statementTimeout, [.text(String(milliseconds))])
            return try body()
        }
    }
}
