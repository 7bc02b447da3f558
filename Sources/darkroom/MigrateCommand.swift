import ArgumentParser
import DarkroomDatabase

extension Darkroom {
    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or upgrade the darkroom schema (safe to run any number of times).")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try withExitCodes {
                let logger = global.makeLogger()
                let connection = try Environment.connect(global)
                let applied = try Migrator().migrate(on: connection, logger: logger)
                print(applied.isEmpty ? "schema darkroom is up to date" : "applied migrations \(applied.map(String.init).joined(separator: ", "))")
            }
        }
    }
}
