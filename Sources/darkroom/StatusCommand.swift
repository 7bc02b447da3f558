import ArgumentParser
import DarkroomQueue
import Foundation

extension Darkroom {
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Queue counts by state, the oldest queued job, recent failures.")

        @OptionGroup var global: GlobalOptions
        @Option(help: "How many recent failures to list.") var failures: Int = 10

        func run() throws {
            try withExitCodes {
                _ = global.makeLogger()
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                let status = try JobQueue(connection, logger: global.makeLogger()).status(recentFailures: failures)
                print("state       jobs")
                for state in JobState.allCases {
                    print(state.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0) + "\(status.countsByState[state] ?? 0)")
                }
                if let oldest = status.oldestQueued {
                    print("oldest queued: job \(oldest.jobID), runnable since \(oldest.runAt.formatted(.iso8601)) (\(Int(oldest.age.components.seconds))s ago)")
                } else {
                    print("oldest queued: none")
                }
                if status.recentFailures.isEmpty {
                    print("recent failures: none")
                } else {
                    print("recent failures:")
                    for failure in status.recentFailures {
                        print("  job \(failure.jobID) asset \(failure.assetID) after \(failure.attempts) attempt(s): \(failure.lastError ?? "?")")
                    }
                }
            }
        }
    }
}
