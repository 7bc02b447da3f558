import ArgumentParser
import DarkroomImport
import DarkroomWorker
import Foundation

extension Darkroom {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy originals under the storage root and record one asset per photo.",
            discussion: "Prints one line per file: the asset id, whether it is new, and where it is stored. Re-importing a photo prints its existing id.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Photos to import: JPEG, HEIC/HEIF or AVIF (told by their content, not their names).")
        var paths: [String]

        func run() throws {
            try withExitCodes {
                let logger = global.makeLogger()
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                let importer = Importer(storage: try Environment.storage(global, create: true), connection: connection, logger: logger)
                var failures = 0
                for path in paths {
                    do {
                        let outcome = try importer.importFile(path)
                        print("asset \(outcome.assetID)\t\(outcome.status.rawValue)\t\(outcome.storedPath)\t\(path)")
                    } catch let error as ImportError {
                        failures += 1
                        FileHandle.standardError.write(Data("darkroom: import refused: \(error)\n".utf8))
                    }
                }
                if failures > 0 { throw CommandFailure.exit(1) }
            }
        }
    }
}
