import ArgumentParser
import DarkroomAdjustments
import DarkroomDatabase

extension Darkroom {
    struct Enqueue: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue an edit of an asset; prints the job id.",
            discussion: "The same as SELECT darkroom.enqueue_edit(asset_id, format_identifier, format_version, data).")

        @OptionGroup var global: GlobalOptions

        @Option(help: "The asset to edit.") var asset: Int64
        @Option(name: .customLong("format-identifier")) var formatIdentifier: String = PipelineFormat.identifier
        @Option(name: .customLong("format-version")) var formatVersion: String = "1.0.0"
        @Option(help: "Adjustment data (JSON for io.darkroom.pipeline).") var data: String
        @Option(help: "Higher runs first.") var priority: Int = 0

        func run() throws {
            try withExitCodes {
                let logger = global.makeLogger()
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                do {
                    let id = try JobQueue(connection, logger: logger).enqueue(
                        assetID: asset, formatIdentifier: formatIdentifier, formatVersion: formatVersion,
                        data: Array(data.utf8), priority: priority)
                    print(id)
                } catch let error as QueueError {
                    throw CommandFailure.invalidInput(error.description)
                } catch let error as DatabaseError where !error.isConnectionFailure {
                    throw CommandFailure.invalidInput(error.description)
                }
            }
        }
    }
}
