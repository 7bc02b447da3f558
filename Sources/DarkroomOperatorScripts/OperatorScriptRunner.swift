import DarkroomDatabase
import Foundation
import Logging

/// Render files a `files: renders` job looks at: listed by the caller, which owns the storage
/// and its layout, and deleted through it (so nothing outside the storage is ever touched).
public protocol RenderFileStore {
    /// Files of job outputs last modified longer ago than `minimumAge`.
    func renderFiles(olderThan minimumAge: Duration) throws -> [RenderFileCandidate]
    /// Deletes a file by the `path` a candidate gave.
    func deleteRenderFile(_ path: String) throws
}

/// A render file and what the storage layout says about it; the SQL decides its fate.
public struct RenderFileCandidate: Sendable, Hashable {
    /// As the storage names it: the key, or an unfinished upload's temporary name.
    public var path: String
    /// The job that wrote it.
    public var jobID: Int64
    /// An upload that never finished (a crashed or stopped attempt).
    public var isTemporary: Bool

    public init(path: String, jobID: Int64, isTemporary: Bool) {
        self.path = path
        self.jobID = jobID
        self.isTemporary = isTemporary
    }
}

/// What a job run did.
public struct OperatorScriptReport: Sendable {
    public var runID: Int64
    /// The result of the last execution of the statement.
    public var columns: [String]
    public var rows: [[String?]]
    /// How often the statement ran (more than once for `repeat: until-zero`).
    public var executions: Int
    /// For `repeat: until-zero`: the sum of the counts it returned.
    public var total: Int64
    public var deletedFiles: [String]
}

/// Runs `Jobs/` files and records each run in `darkroom.job_runs`.
public struct OperatorScriptRunner {
    let runs: OperatorScriptRuns
    let logger: Logger

    public init(_ connection: DatabaseConnection, logger: Logger) {
        self.runs = OperatorScriptRuns(connection)
        self.logger = logger
    }

    static let pathsPerStatement = 1000

    /// The parameters a `files: renders` job gets from the runner: the candidates as parallel
    /// arrays. Empty ones check a job's other parameters before anything is listed.
    public static let renderFileParameters = ["paths": "{}", "job_ids": "{}", "temporary": "{}"]

    public func run(_ script: OperatorScript, parameters: [String: String], files: (any RenderFileStore)? = nil) throws
        -> OperatorScriptReport
    {
        _ = try script.bound(
            script.files == nil ? parameters : parameters.merging(Self.renderFileParameters) { given, _ in given })
        let paramsJSON = String(
            decoding: try JSONSerialization.data(withJSONObject: parameters, options: [.sortedKeys]), as: UTF8.self)
        let runID = try runs.begin(name: script.name, parametersJSON: paramsJSON)
        var logger = logger
        logger[metadataKey: "script"] = "\(script.name)"
        logger[metadataKey: "run_id"] = "\(runID)"
        do {
            let report = try execute(script, parameters: parameters, files: files, runID: runID, logger: logger)
            let result =
                report.total > 0 || script.repeats == .untilZero ? "\(report.total)" : "\(report.rows.count) row(s)"
            try runs.finish(
                runID: runID, .succeeded,
                result: result + (report.deletedFiles.isEmpty ? "" : ", \(report.deletedFiles.count) file(s) deleted"))
            return report
        } catch {
            try? runs.finish(runID: runID, .failed, result: "\(error)")
            throw error
        }
    }

    private func execute(
        _ script: OperatorScript, parameters: [String: String], files: (any RenderFileStore)?, runID: Int64,
        logger: Logger
    ) throws -> OperatorScriptReport {
        var report = OperatorScriptReport(
            runID: runID, columns: [], rows: [], executions: 0, total: 0, deletedFiles: [])
        if script.files == .renders {
            guard let files else {
                throw OperatorScriptError(
                    object: script.name,
                    message: "it works on render files; run it with a storage root (DARKROOM_STORAGE)"
                )
            }
            let minutes =
                parameters["min_age_minutes"] ?? script.parameters.first { $0.name == "min_age_minutes" }?.defaultValue
                ?? ""
            guard let minimumAge = Int(minutes), minimumAge >= 0 else {
                throw OperatorScriptError(
                    object: script.name, message: "min_age_minutes must be a whole number of minutes, got \(minutes)")
            }
            let candidates = try files.renderFiles(olderThan: .seconds(minimumAge * 60))
            logger.info("checking render files", metadata: ["candidates": "\(candidates.count)"])
            for start in stride(from: 0, to: candidates.count, by: Self.pathsPerStatement) {
                let chunk = Array(candidates[start..<min(start + Self.pathsPerStatement, candidates.count)])
                let filled = [
                    "paths": Self.arrayLiteral(chunk.map(\.path)),
                    "job_ids": Self.arrayLiteral(chunk.map { String($0.jobID) }),
                    "temporary": Self.arrayLiteral(chunk.map { String($0.isTemporary) }),
                ]
                let rows = try once(script, parameters.merging(filled) { _, runner in runner }, into: &report)
                for path in rows.column("path") ?? Array(repeating: nil, count: rows.rows.count) {
                    guard let path else {
                        throw OperatorScriptError(
                            object: script.name, message: "a `files: renders` job must return a `path` column")
                    }
                    try files.deleteRenderFile(path)
                    report.deletedFiles.append(path)
                }
            }
            logger.info("deleted orphaned render files", metadata: ["deleted": "\(report.deletedFiles.count)"])
            return report
        }
        while true {
            let rows = try once(script, parameters, into: &report)
            guard script.repeats == .untilZero else { return report }
            guard let count = rows.firstCount else {
                throw OperatorScriptError(
                    object: script.name,
                    message: "`repeat: until-zero` needs the statement to return a count in its first column")
            }
            report.total += count
            logger.debug("script batch done", metadata: ["count": "\(count)", "total": "\(report.total)"])
            if count <= 0 { return report }
        }
    }

    private func once(_ script: OperatorScript, _ parameters: [String: String], into report: inout OperatorScriptReport)
        throws -> OperatorScriptRuns.Rows
    {
        let (sql, values) = try script.bound(parameters)
        let rows = try runs.runStatement(sql, values: values)
        report.executions += 1
        report.columns = rows.columns
        report.rows = rows.rows
        return rows
    }

    /// A PostgreSQL array literal of text values, each quoted and escaped.
    static func arrayLiteral(_ values: [String]) -> String {
        "{"
            + values.map { value in
                "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    + "\""
            }.joined(separator: ",") + "}"
    }
}

/// The job files in a folder, by name.
public enum OperatorScriptCatalog {
    public static func load(from folder: String) throws -> [OperatorScript] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".sql") }.sorted()
        } catch {
            throw OperatorScriptError(
                object: "*",
                message:
                    "cannot read the jobs folder \(folder): \(error.localizedDescription); pass --jobs-dir or set DARKROOM_JOBS_DIR"
            )
        }
        return try names.map { file in
            let name = String(file.dropLast(4))
            // Checked before reading, so a stray huge file is refused without being read.
            let size =
                (try? FileManager.default.attributesOfItem(atPath: folder + "/" + file)[.size] as? NSNumber)?.intValue
                ?? 0
            guard size <= OperatorScript.maxBytes else {
                throw OperatorScriptError(
                    object: name,
                    message: "\(folder)/\(file) is \(size) bytes; a job file holds at most \(OperatorScript.maxBytes)")
            }
            guard let text = try? String(contentsOfFile: folder + "/" + file, encoding: .utf8) else {
                throw OperatorScriptError(object: name, message: "cannot read \(folder)/\(file)")
            }
            return try OperatorScript(parsing: text, expectedName: name)
        }
    }
}
