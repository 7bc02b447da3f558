import Foundation
import Timing

/// Where a batch stands. Pure value: the CLI draws it as a bar on a terminal and as a log
/// line elsewhere.
public struct BatchProgress: Sendable, Hashable {
    public var batch: String
    public var total: Int
    public var queued: Int
    public var running: Int
    public var succeeded: Int
    public var failed: Int
    public var cancelled: Int
    public var createdAt: Date
    public var lastFinishedAt: Date?
    /// Jobs finished per second over the last ten minutes; `nil` when none finished.
    public var jobsPerSecond: Double?
    /// At `jobsPerSecond`; `nil` when nothing finished lately.
    public var eta: Duration?

    public init(
        batch: String, total: Int, queued: Int, running: Int, succeeded: Int, failed: Int, cancelled: Int,
        createdAt: Date, lastFinishedAt: Date?, jobsPerSecond: Double?, eta: Duration?
    ) {
        self.batch = batch
        self.total = total
        self.queued = queued
        self.running = running
        self.succeeded = succeeded
        self.failed = failed
        self.cancelled = cancelled
        self.createdAt = createdAt
        self.lastFinishedAt = lastFinishedAt
        self.jobsPerSecond = jobsPerSecond
        self.eta = eta
    }

    /// Finished one way or another.
    public var done: Int { succeeded + failed + cancelled }
    public var remaining: Int { queued + running }
    public var isFinished: Bool { remaining == 0 }

    /// "nightly: 1200/5000 done (1180 succeeded, 20 failed), 3800 remaining, 4.2 jobs/s, ETA 15m 05s"
    public var summaryLine: String {
        var parts = [
            "\(batch): \(done)/\(total) done (\(succeeded) succeeded, \(failed) failed"
                + (cancelled > 0 ? ", \(cancelled) cancelled)" : ")"), "\(remaining) remaining",
        ]
        if let rate = jobsPerSecond, rate > 0 { parts.append(String(format: "%.1f jobs/s", rate)) }
        if !isFinished {
            parts.append("ETA " + (eta.map(Self.format) ?? "unknown (nothing finished in the last 10 minutes)"))
        }
        return parts.joined(separator: ", ")
    }

    /// "[#########-----------]  45% 450/1000 · 3 failed · 4.2/s · ETA 2m 11s", `width` cells of bar.
    public func bar(width: Int = 30) -> String {
        let fraction = total == 0 ? 1 : Double(done) / Double(total)
        let filled = min(width, max(0, Int((fraction * Double(width)).rounded(.down))))
        var line = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
        line += String(format: "%3d%% %d/%d", Int((fraction * 100).rounded(.down)), done, total)
        if failed > 0 { line += " · \(failed) failed" }
        if let rate = jobsPerSecond, rate > 0 { line += String(format: " · %.1f/s", rate) }
        if !isFinished, let eta { line += " · ETA " + Self.format(eta) }
        return line
    }

    /// "3h 02m", "15m 05s", "42s".
    public static func format(_ duration: Duration) -> String {
        let total = max(0, Int(duration.seconds))
        let (hours, minutes, seconds) = (total / 3600, total / 60 % 60, total % 60)
        if hours > 0 { return String(format: "%dh %02dm", hours, minutes) }
        if minutes > 0 { return String(format: "%dm %02ds", minutes, seconds) }
        return "\(seconds)s"
    }
}
