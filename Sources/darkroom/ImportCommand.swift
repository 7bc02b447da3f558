import ArgumentParser
import DarkroomImport
import DarkroomObjectStore
import DarkroomStorage
import DarkroomWorker
import Foundation
import PrintableText

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

        @Option(
            name: .customLong("decoder-sandbox"),
            help:
                "on: each photo's header and metadata are parsed in a child process that holds no credential, can open no file and makes only the system calls decoding needs, forked from a zygote (docs/hostile-input.md); fresh: each child started afresh; off: in import itself."
        )
        var decoderSandbox: SandboxSetting = .on

        func run() throws {
            try withExitCodes {
                let logger = global.makeLogger()
                let connection = try Environment.connect(global)
                try Environment.requireSchema(connection)
                let storage = try Environment.storage(global, create: true)
                let importer = Importer(
                    storage: storage, connection: connection, logger: logger, followsSymlinks: followSymlinks,
                    sandbox: try decoderSandbox.checked())
                var failures = 0
                for target in try paths.flatMap(targets) {
                    do {
                        // An object already in the storage (s3://bucket/prefix/KEY) is registered where it is.
                        let outcome: ImportOutcome
                        switch target {
                        case .path(let path):
                            outcome =
                                if let key = try storedKey(path, in: storage.location) {
                                    try importer.importStoredObject(key)
                                } else {
                                    try importer.importFile(path)
                                }
                        case .named(let name, let folder):
                            outcome = try importer.importFile(named: name, in: folder)
                        }
                        print(
                            "asset \(outcome.assetID)\t\(outcome.status.rawValue)\t\(outcome.storedPath)\t\(Printable.field(target.shown))"
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

        /// What one import reads: a path as given, or a file of a folder by the bytes of its name
        /// (one that is not UTF-8).
        enum Target {
            case path(String)
            case named(ImportName, folder: String)

            /// How its line names it.
            var shown: String {
                switch self {
                case .path(let path): path
                case .named(let name, let folder): (folder as NSString).appendingPathComponent(name.display)
                }
            }
        }

        /// A folder's originals (Apple's naming tells its renders and sidecars apart; a name that
        /// is not UTF-8 is no Apple file), else `path` itself.
        func targets(_ path: String) throws -> [Target] {
            if let raw = Self.rawArgument(path) { return [try Self.target(raw)] }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                return [.path(path)]
            }
            let names = try ImportName.entries(of: path)
            return AppleExportFiles.originals(among: names.compactMap(\.text)).map {
                .path((path as NSString).appendingPathComponent($0))
            } + names.filter { $0.text == nil }.map { .named($0, folder: path) }
        }

        /// A path given on the command line whose bytes are not UTF-8: its file, by the bytes of
        /// its name, in a folder whose name must be UTF-8.
        static func target(_ raw: [UInt8]) throws -> Target {
            let slash = raw.lastIndex(of: UInt8(ascii: "/"))
            let folderBytes = slash.map { $0 == 0 ? [UInt8(ascii: "/")] : Array(raw[..<$0]) } ?? Array(".".utf8)
            let name = ImportName(Array(raw[(slash.map { $0 + 1 } ?? 0)...]))
            guard let folder = String(validating: folderBytes, as: UTF8.self) else {
                throw ImportError(
                    .unreadable, object: ImportName(raw).display,
                    message:
                        "is in a folder whose name is not UTF-8; darkroom reads such bytes only in a file's own name")
            }
            return .named(name, folder: folder)
        }

        /// The bytes of a command-line argument that is not UTF-8 (its text holds U+FFFD in their
        /// place); nil for one that is.
        static func rawArgument(_ argument: String) -> [UInt8]? {
            guard argument.unicodeScalars.contains("\u{FFFD}") else { return nil }
            for index in 0..<Int(CommandLine.argc) {
                guard let pointer = CommandLine.unsafeArgv[index] else { continue }
                let bytes = UnsafeBufferPointer(start: pointer, count: strlen(pointer)).map { UInt8(bitPattern: $0) }
                if String(validating: bytes, as: UTF8.self) == nil, String(decoding: bytes, as: UTF8.self) == argument {
                    return bytes
                }
            }
            return nil
        }

        /// The key of `path` when it names an object of the storage by its URL (an object store's
        /// `s3://…`; local files inside a storage root are recognised by the storage itself).
        func storedKey(_ path: String, in location: String) throws -> StorageKey? {
            guard S3Location.names(location) else { return nil }
            do {
                return try S3Location(parsing: location).key(ofObjectURL: path)
            } catch {
                throw ImportError(
                    .refusedKey, object: path, message: "names no key darkroom allows: \(error.message)", cause: error)
            }
        }
    }
}
