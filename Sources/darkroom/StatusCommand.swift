import ArgumentParser
import DarkroomDatabase
import Foundation
import PrintableText
import Timing

extension Darkroom {
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue counts by state, the oldest queued job, recent failures; or one batch's progress.",
            discussion: """
                With --batch: done/failed/remaining, rate and ETA (darkroom.batch_summary). With --follow it keeps \
                watching until the batch is finished: a progress bar on a terminal, a plain line every --interval \
                otherwise (logs, cron mail). Exit code 3 when the finished batch has failed jobs.
                """)

        @OptionGroup var global: GlobalOptions
        @Option(help: "How many recent failures to list.") var failures: Int = 10
        @Option(help: "Show this batch's progress.") var batch: String?
        @Flag(help: "With --batch, keep watching until the batch is finished.") var follow = false
        @Option(help: "With --follow, seconds between updates.") var interval: Double = 2

        func validate() throws {
            if follow && batch == nil { throw ValidationError("--follow needs --batch NAME") }
            guard interval > 0, interval <= 3600 else {
                throw ValidationError("--interval must be between 0 and 3600 seconds")
            }
        }

        func run() throws {
            try withExitCodes {
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                let queue = JobQueue(connection, logger: global.makeLogger())
                if let batch {
                    try BatchWatch(queue: queue, batch: batch, follow: follow, intervalSeconds: interval).run()
                } else {
                    printQueue(try queue.status(recentFailures: failures))
                    print(
                        FleetReport(
                            throughput: try queue.throughput(), workers: try queue.workers(),
                            waiting: try queue.waitingForEditor()
                        ).text)
                }
            }
        }

        private func printQueue(_ status: QueueStatus) {
            print("state       jobs")
            for state in JobState.allCases {
                print(
                    state.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
                        + "\(status.countsByState[state] ?? 0)")
            }
            if let oldest = status.oldestQueued {
                print(
                    "oldest queued: job \(oldest.jobID), runnable since \(oldest.runAt.formatted(.iso8601)) (\(Int(oldest.age.seconds))s ago)"
                )
            } else {
                print("oldest queued: none")
            }
            if status.recentFailures.isEmpty {
                print("recent failures: none")
            } else {
                print("recent failures:")
                for failure in status.recentFailures {
                    print(
                        "  job \(failure.jobID) asset \(failure.assetID) after \(failure.attempts) attempt(s): \(Printable.field(failure.lastError ?? "?"))"
                    )
                }
            }
        }
    }
}

/// `status --batch`: once, or until the batch is finished.
struct BatchWatch {
    var queue: JobQueue
    var batch: String
    var follow: Bool
    var intervalSeconds: Double

    func run() throws {
        let terminal = isatty(STDOUT_FILENO) == 1
        var lastLine = ""
        while true {
            guard let progress = try queue.progress(ofBatch: batch) else {
                throw CommandFailure.invalidInput(
                    "there is no batch \(batch); batches are listed in darkroom.batch_summary")
            }
            if !follow {
                print(progress.summaryLine)
                try printFailureCodes()
                break
            }
            if terminal {
                // \r and erase-line redraw the bar in place.
                FileHandle.standardOutput.write(Data("\r\u{1B}[2K\(progress.batch) \(progress.bar())".utf8))
            } else if progress.summaryLine != lastLine {
                // Unbuffered, so a log collector sees each line as it happens.
                FileHandle.standardOutput.write(Data((progress.summaryLine + "\n").utf8))
                lastLine = progress.summaryLine
            }
            if progress.isFinished {
                if terminal { print("\n" + progress.summaryLine) }
                try printFailureCodes()
                if progress.failed > 0 { throw CommandFailure.exit(3) }
                return
            }
            Thread.sleep(forTimeInterval: intervalSeconds)
        }
    }

    /// "failures by code: jpeg_corrupt 12, original_missing 3" (darkroom.batch_failure_codes).
    private func printFailureCodes() throws {
        let codes = try queue.failureCodes(ofBatch: batch)
        guard !codes.isEmpty else { return }
        print("failures by code: " + codes.map { "\($0.code ?? "none") \($0.jobs)" }.joined(separator: ", "))
    }
}
