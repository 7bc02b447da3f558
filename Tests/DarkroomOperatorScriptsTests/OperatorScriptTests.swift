import DarkroomDatabase
import DarkroomOperatorScripts
import DarkroomTestSupport
import Foundation
import Testing

/// The `Jobs/` header format and parameter binding, without a database.
@Suite("Operator script files (Jobs/)")
struct OperatorScriptTests {
    let prune = """
        -- job: prune
        -- does: Delete finished jobs.
        -- schedule: daily at 03:30
        -- param: batch_size int = 5000  -- rows per transaction
        -- param: batch text
        -- repeat: until-zero
        SELECT darkroom.prune_jobs(batch_size => :batch_size), ':not_a_param', "col:umn", now()::text, :batch, :batch_size
        """

    @Test func headerAndParametersAreRead() throws {
        let job = try OperatorScript(parsing: prune, expectedName: "prune")
        #expect(job.name == "prune" && job.summary == "Delete finished jobs." && job.schedule == "daily at 03:30")
        #expect(job.repeats == .untilZero)
        #expect(job.parameters.map(\.name) == ["batch_size", "batch"])
        #expect(job.parameters[0].defaultValue == "5000" && job.parameters[0].help == "rows per transaction")
        #expect(job.parameters[1].defaultValue == nil)
    }

    /// Found by fuzz-job-file: CR LF is one Character in Swift, so a file saved on Windows was
    /// one long line, and a header line behind a stray CR became SQL.
    @Test func anyLineEndingIsALineEnding() throws {
        for ending in ["\r\n", "\r"] {
            let job = try OperatorScript(
                parsing: prune.replacingOccurrences(of: "\n", with: ending), expectedName: "prune")
            #expect(job.parameters.map(\.name) == ["batch_size", "batch"] && job.repeats == .untilZero)
            #expect(job.sql.hasPrefix("SELECT darkroom.prune_jobs("))
        }
        let strayReturn = try OperatorScript(
            parsing: prune.replacingOccurrences(of: "-- repeat", with: "\r\r-- repeat"), expectedName: "prune")
        #expect(strayReturn.repeats == .untilZero && strayReturn.sql.hasPrefix("SELECT"))
    }

    @Test func placeholdersBecomeNumberedTypedBindsOutsideLiterals() throws {
        let job = try OperatorScript(parsing: prune, expectedName: "prune")
        let (sql, values) = try job.bound(["batch": "x'); DROP TABLE darkroom.jobs; --"])
        #expect(
            sql.hasSuffix(
                #"SELECT darkroom.prune_jobs(batch_size => ($1::int)), ':not_a_param', "col:umn", now()::text, ($2::text), ($1::int)"#
            ))
        #expect(values == ["5000", "x'); DROP TABLE darkroom.jobs; --"], "values travel as binds, never as SQL text")
    }

    @Test func badParametersAreRefusedByName() throws {
        let job = try OperatorScript(parsing: prune, expectedName: "prune")
        #expect(throws: OperatorScriptError.self) { try job.bound([:]) }  // batch is required
        let unknown = #expect(throws: OperatorScriptError.self) { try job.bound(["batch": "b", "bacth_size": "1"]) }
        #expect(unknown?.description.contains("no parameter bacth_size") == true)
    }

    @Test(arguments: [
        ("-- does: x\n-- schedule: y\nSELECT 1", "no `-- job: NAME`"),
        ("-- job: other\n-- does: x\n-- schedule: y\nSELECT 1", "the file is prune.sql"),
        ("-- job: prune\n-- schedule: y\nSELECT 1", "`-- does:`"),
        ("-- job: prune\n-- does: x\n-- schedule: y\nSELECT :missing", "declares no `-- param: missing"),
        ("-- job: prune\n-- does: x\n-- schedule: y\n-- param: n integer\nSELECT :n", "has type `integer`"),
        ("-- job: prune\n-- does: x\n-- schedule: y\nSELECT 'open", "unterminated string literal"),
        ("-- job: prune\n-- does: x\n-- schedule: y\n-- repeat: forever\nSELECT 1", "`repeat:` must be"),
        ("-- job: prune\n-- does: x\n-- schedule: y\n", "no SQL"),
        (
            "-- job: prune\n-- does: x\n-- schedule: y\n-- param: n int\n-- param: n text = a\nSELECT :n",
            "line 5: parameter n is declared twice"
        ),
    ])
    func malformedFilesAreRefused(text: String, problem: String) {
        let error = #expect(throws: OperatorScriptError.self) {
            try OperatorScript(parsing: text, expectedName: "prune")
        }
        #expect(error?.description.contains(problem) == true, "\(error?.description ?? "")")
    }

    /// The bounds of a job file (docs/hostile-input.md), at the bound and one past it.
    @Test func sizeAndParameterLimits() throws {
        let header = "-- job: prune\n-- does: x\n-- schedule: y\n"
        func parameters(_ count: Int) -> String {
            header + (0..<count).map { "-- param: p\($0) int = \($0)\n" }.joined() + "SELECT "
                + (0..<count).map { ":p\($0)" }.joined(separator: ", ")
        }
        #expect(
            try OperatorScript(parsing: parameters(OperatorScript.maxParameters), expectedName: "prune").parameters
                .count == 32)
        let tooMany = #expect(throws: OperatorScriptError.self) {
            try OperatorScript(parsing: parameters(OperatorScript.maxParameters + 1), expectedName: "prune")
        }
        #expect(tooMany?.message == "line 36: a job takes at most 32 parameters")

        let statement = header + "SELECT 1 "
        let atLimit =
            statement + "-- " + String(repeating: "x", count: OperatorScript.maxBytes - statement.utf8.count - 3)
        #expect(
            try OperatorScript(parsing: atLimit, expectedName: "prune").sql.utf8.count == OperatorScript.maxBytes
                - header.utf8.count)
        let tooBig = #expect(throws: OperatorScriptError.self) {
            try OperatorScript(parsing: atLimit + "x", expectedName: "prune")
        }
        #expect(tooBig?.message == "the file is 65537 bytes; a job file holds at most 65536")
    }

    @Test func everyShippedJobParses() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Jobs").path
        let jobs = try OperatorScriptCatalog.load(from: folder)
        #expect(
            Set(jobs.map(\.name)) == ["nightly", "rerender-format", "retry-batch", "prune", "clean-orphaned-renders"])
        for job in jobs where job.files == nil {
            let required = job.parameters.filter { $0.defaultValue == nil }.map(\.name)
            _ = try job.bound(Dictionary(uniqueKeysWithValues: required.map { ($0, "1.0.0") }))
        }
    }
}
