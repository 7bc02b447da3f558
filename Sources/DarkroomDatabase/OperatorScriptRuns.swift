internal import LibPQ

/// The operator's batch SQL (`Jobs/*.sql`) and its bookkeeping in `darkroom.job_runs`: the
/// runner hands over the statement a job file holds and its bound values; this sends it and
/// records each run, so every statement reaches PostgreSQL through this module.
public struct OperatorScriptRuns {
    let connection: DatabaseConnection

    public init(_ connection: DatabaseConnection) {
        self.connection = connection
    }

    /// How a run ended, as `darkroom.job_runs.status` spells it.
    public enum Outcome: String, Sendable {
        case succeeded
        case failed
    }

    /// What one execution of a job's statement returned, as the server prints it (text results:
    /// the report shows whatever the job's SQL returns).
    public struct Rows: Sendable, Hashable {
        public var columns: [String]
        public var rows: [[String?]]
        /// The first row's first value as a whole number, if it is one (a count, for
        /// `repeat: until-zero`).
        public var firstCount: Int64?

        /// The values of column `name`, one per row; nil when there is no such column.
        public func column(_ name: String) -> [String?]? {
            columns.firstIndex(of: name).map { index in rows.map { $0[index] } }
        }
    }

    /// Records the start of a run of `name` with its parameters (a JSON object); the run's id.
    public func begin(name: String, parametersJSON: String) throws -> Int64 {
        try connection.query(.beginScriptRun, [.text(name), .text(parametersJSON)])[0]["id"].decode(Int64.self)
    }

    /// Records how run `runID` ended and what it did.
    public func finish(runID: Int64, _ outcome: Outcome, result: String) throws {
        _ = try connection.query(.finishScriptRun, [.int(runID), .text(outcome.rawValue), .text(result)])
    }

    /// Executes a job file's statement with its values bound as text, in order.
    public func runStatement(_ statement: String, values: [String]) throws -> Rows {
        let rows = try connection.query(operatorStatement: statement, values)
        return Rows(
            columns: rows.columns.map(\.name), rows: rows.map { row in rows.columns.indices.map { row[$0].string } },
            firstCount: rows.first?[0].int64)
    }
}
