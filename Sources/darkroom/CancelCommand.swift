import ArgumentParser
import DarkroomDatabase

extension Darkroom {
    struct Cancel: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel queued or running jobs, by id or by batch.",
            discussion: """
                The same as SELECT darkroom.cancel_job(id) / darkroom.cancel_batch(batch). A running job's worker \
                notices at its next heartbeat and records nothing. Prints one line per job or batch.
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Job ids.") var jobs: [Int64] = []
        @Option(help: "Cancel every queued or running job of this batch.") var batch: String?

        func validate() throws {
            guard !jobs.isEmpty || batch != nil else { throw ValidationError("give job ids or --batch NAME") }
        }

        func run() throws {
            try withExitCodes {
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                let queue = JobQueue(connection, logger: global.makeLogger())
                try JobControl.each(jobs) { id in
                    print(
                        try queue.cancel(jobID: id)
                            ? "job \(id)\tcancelled" : "job \(id)\talready finished; nothing to cancel")
                }
                if let batch {
                    try JobControl.sql {
                        let count = try queue.cancel(batch: batch)
                        print("batch \(batch)\t\(count) job(s) cancelled")
                    }
                }
            }
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue failed or cancelled jobs again with fresh attempts, by id or by batch.",
            discussion:
                "The same as SELECT darkroom.retry_job(id) / darkroom.retry_batch(batch). Error history is kept.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Job ids.") var jobs: [Int64] = []
        @Option(help: "Retry the failed jobs of this batch.") var batch: String?
        @Flag(name: .customLong("include-cancelled"), help: "With --batch, retry its cancelled jobs too.")
        var includeCancelled = false

        func validate() throws {
            guard !jobs.isEmpty || batch != nil else { throw ValidationError("give job ids or --batch NAME") }
        }

        func run() throws {
            try withExitCodes {
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                let queue = JobQueue(connection, logger: global.makeLogger())
                try JobControl.each(jobs) { id in
                    print(
                        try queue.retry(jobID: id)
                            ? "job \(id)\tqueued" : "job \(id)\tnot failed or cancelled; left alone")
                }
                if let batch {
                    try JobControl.sql {
                        let count = try queue.retry(batch: batch, includeCancelled: includeCancelled)
                        print("batch \(batch)\t\(count) job(s) queued again")
                    }
                }
            }
        }
    }
}

/// Shared by cancel and retry: unknown ids and refusals are bad input (exit 1) after the rest ran.
enum JobControl {
    static func each(_ ids: [Int64], _ body: (Int64) throws -> Void) throws {
        var refused: [String] = []
        for id in ids {
            do { try body(id) } catch let error as QueueError { refused.append(error.description) }
        }
        if !refused.isEmpty { throw CommandFailure.invalidInput(refused.joined(separator: "\n")) }
    }

    static func sql(_ body: () throws -> Void) throws {
        do { try body() } catch let error as DatabaseError where !error.isConnectionFailure {
            throw CommandFailure.invalidInput(error.message + (error.hint.map { " (\($0))" } ?? ""))
        }
    }
}
