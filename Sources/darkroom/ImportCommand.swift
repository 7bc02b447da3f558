import ArgumentParser
import DarkroomImport
import DarkroomObjectStore
import DarkroomStorage
import DarkroomWorker
import Foundation

extension Darkroom {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy originals under the storage root and record one asset per photo.",
            discussion:
                "Prints one line per file: the asset id, whether it is new, where it is stored, the file, and what became of an Apple Photos edit beside it (its .AAE recorded with Apple's IMG_E render, or queued for a render). Re-importing a photo prints its existing id. A folder imports its photos, less Apple's renders of them."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: "Photos or folders to import: JPEG, HEIC/HEIF or AVIF (told by their content, not their names).")
        var paths: [String]

        @Flag(
            name: .customLong("follow-symlinks"),
            help: "Import what a symlink points to even outside its folder (default: refused).")
        var followSymlinks = false

        func run() throws {
            try withExitCodes {
                let logger = global.makeLogger()
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                let storage = try Environment.storage(global, create: true)
                let importer = Importer(
                    storage: storage, connection: connection, logger: logger, followsSymlinks: followSymlinks)
                var failures = 0
                for path in try paths.flatMap(expand) {
                    do {
                        // An object already in the storage (s3://bucket/prefix/KEY) is registered where it is.
                        let outcome =
                            if let key = try storedKey(path, in: storage.location) {
                                try importer.importStoredObject(key)
                            } else {
                                try importer.importFile(path)
                            }
                        print(
                            "asset \(outcome.assetID)\t\(outcome.status.rawValue)\t\(outcome.storedPath)\t\(Printable.field(path))"
                                + (outcome.appleEdit.map { "\t\(Printable.field($0))" } ?? ""))
                        if let refusal = outcome.sidecarRefusal {
                            failures += 1
                            FileHandle.standardError.write(
                                Data(
                                    "darkroom: import refused the edit beside it: \(Printable.field("\(refusal)")); the photo itself was imported as asset \(outcome.assetID)\n"
                                        .utf8))
                        }
                    } catch let error as ImportError {
                        failures += 1
                        FileHandle.standardError.write(
                            Data("darkroom: import refused: \(Printable.field("\(error)"))\n".utf8))
                    }
                }
                if failures > 0 { throw CommandFailure.exit(1) }
            }
        }

        /// A folder's originals (Apple's naming tells its renders and sidecars apart), else `path`.
        func expand(_ path: String) throws -> [String] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                return [path]
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: path)
            return AppleExportFiles.originals(among: names).map { (path as NSString).appendingPathComponent($0) }
        }

        /// The key of `path` when it names an object of the storage by its URL (an object store's
        /// `s3://…`; local files inside a storage root are recognised by the storage itself).
        func storedKey(_ path: String, in location: String) throws -> StorageKey? {
            guard S3Location.names(location) else { return nil }
            do {
                return try S3Location(parsing: location).key(ofObjectURL: path)
            } catch {
                throw ImportError(
                    .refusedKey, source: path, message: "names no key darkroom allows: \(error.message)", cause: error)
            }
        }
    }
}
