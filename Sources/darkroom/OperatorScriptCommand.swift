import ArgumentParser
import DarkroomDatabase
import DarkroomOperatorScripts
import DarkroomWorker
import Foundation
import PrintableText

extension Darkroom {
    /// `darkroom job`: the operator scripts of `Jobs/`. The command is named after the folder;
    /// everywhere else in the code they are scripts, so "job" means a queued render job.
    struct OperatorScriptCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "job",
            abstract: "Operator batch jobs: the SQL files in Jobs/.",
            subcommands: [List.self, Run.self])

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List the jobs with what they do, their parameters and schedule.")
            @OptionGroup var location: ScriptFolder

            func run() throws {
                try withExitCodes {
                    for script in try location.catalog() {
                        print("\(script.name)\n  \(script.summary)\n  schedule: \(script.schedule)")
                        for parameter in script.parameters
                        where !(script.files != nil && OperatorScriptRunner.renderFileParameters[parameter.name] != nil)
                        {
                            let value = parameter.defaultValue.map { " = \($0)" } ?? " (required)"
                            print(
                                "  --param \(parameter.name)=\(parameter.type.uppercased())\(value)"
                                    + (parameter.help.isEmpty ? "" : "  \(parameter.help)"))
                        }
                    }
                }
            }
        }

        struct Run: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Run one job; prints its result and records the run in darkroom.job_runs.",
                discussion:
                    "Exit 0 when it ran, 1 for an unknown job or bad parameters, 2 when the database is unavailable.")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var location: ScriptFolder
            @Argument(help: "The job's name (see `darkroom job list`).") var name: String
            @Option(name: .customLong("param"), help: "k=v, repeatable.") var params: [String] = []

            func run() throws {
                try withExitCodes {
                    let logger = global.makeLogger()
                    var parameters: [String: String] = [:]
                    for param in params {
                        guard let equals = param.firstIndex(of: "="), equals != param.startIndex else {
                            throw CommandFailure.invalidInput("--param \(param): write --param name=value")
                        }
                        parameters[String(param[..<equals])] = String(param[param.index(after: equals)...])
                    }
                    let catalog = try location.catalog()
                    guard let script = catalog.first(where: { $0.name == name }) else {
                        throw CommandFailure.invalidInput(
                            "there is no job \(name); the jobs are \(catalog.map(\.name).joined(separator: ", "))")
                    }
                    do {
                        _ = try script.bound(
                            script.files == nil
                                ? parameters
                                : parameters.merging(OperatorScriptRunner.renderFileParameters) { a, _ in a })
                    } catch {
                        throw CommandFailure.invalidInput("\(error)")
                    }
                    let connection = try Environment.connect(global)
                    try Environment.requireSchema(connection)
                    let files = script.files == nil ? nil : StoredRenderFiles(storage: try Environment.storage(global))
                    let started = ContinuousClock.now
                    let report: OperatorScriptReport
                    do {
                        report = try OperatorScriptRunner(connection, logger: logger).run(
                            script, parameters: parameters, files: files)
                    } catch let error as DatabaseError where !error.isConnectionFailure {
                        throw CommandFailure.invalidInput("job \(name) failed: \(error)")
                    } catch let error as OperatorScriptError {
                        throw CommandFailure.invalidInput(error.description)
                    }
                    let elapsed = (ContinuousClock.now - started).formatted(
                        .units(allowed: [.seconds, .milliseconds], width: .narrow))
                    if script.files != nil {
                        for path in report.deletedFiles { print("deleted\t\(Printable.field(path))") }
                        print(
                            "job \(name): deleted \(report.deletedFiles.count) orphaned render file(s) in \(elapsed) (run \(report.runID))"
                        )
                    } else if script.repeats == .untilZero {
                        print(
                            "job \(name): \(report.total) in \(report.executions) batch(es) in \(elapsed) (run \(report.runID))"
                        )
                    } else {
                        print(report.columns.joined(separator: "\t"))
                        for row in report.rows { print(row.map { Printable.field($0 ?? "") }.joined(separator: "\t")) }
                        print("job \(name): \(report.rows.count) row(s) in \(elapsed) (run \(report.runID))")
                    }
                }
            }
        }
    }
}

/// Where the job files are: --jobs-dir, $DARKROOM_JOBS_DIR, then the installed copy. Never the
/// current folder: a `Jobs/` that whoever owns it left there would run as the schema's owner.
struct ScriptFolder: ParsableArguments {
    @Option(
        name: .customLong("jobs-dir"),
        help: "Folder of job files (default: $DARKROOM_JOBS_DIR, else the installed /usr/share/darkroom/jobs).")
    var jobsDir: String?

    func folder() throws -> String {
        if let explicit = jobsDir ?? ProcessInfo.processInfo.environment["DARKROOM_JOBS_DIR"], !explicit.isEmpty {
            return explicit
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        let candidates = [
            executable.appendingPathComponent("../share/darkroom/jobs").standardizedFileURL.path,
            "/usr/share/darkroom/jobs",
        ]
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw CommandFailure.cannotWork(
                "no jobs folder found (looked in \(candidates.joined(separator: ", "))); pass --jobs-dir or set DARKROOM_JOBS_DIR"
            )
        }
        return found
    }

    func catalog() throws -> [OperatorScript] {
        do { return try OperatorScriptCatalog.load(from: try folder()) } catch let error as OperatorScriptError {
            throw CommandFailure.invalidInput(error.description)
        }
    }
}
