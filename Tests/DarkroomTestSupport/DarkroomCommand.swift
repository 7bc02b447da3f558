import Foundation

/// Runs the built `darkroom` executable, as an operator or a scheduler would.
public struct DarkroomCommand: Sendable {
    public let databaseURL: String
    public let storage: String

    public init(databaseURL: String, storage: String) {
        self.databaseURL = databaseURL
        self.storage = storage
    }

    public struct Output: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// The executable SwiftPM built next to the test bundle.
    public static var executable: URL {
        let folder = Bundle.main.bundleURL.deletingLastPathComponent()
        let candidates = [Bundle.main.bundleURL, folder].map { $0.appendingPathComponent("darkroom") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    @discardableResult
    public func run(_ arguments: String...) throws -> Output {
        try run(arguments)
    }

    /// `extra` set in its environment, `removing` taken out of it, run in `folder` (else the
    /// test's own current folder).
    public func run(
        _ arguments: [String], environment extra: [String: String] = [:], removing: Set<String> = [],
        in folder: String? = nil
    ) throws -> Output {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = databaseURL
        environment["DARKROOM_STORAGE"] = storage
        // `migrate` grants to roles named after the test database, dropped with it.
        environment.merge(TestDatabase.roleEnvironment(forDatabaseAt: databaseURL)) { $1 }
        for (key, value) in extra { environment[key] = value }
        for key in removing { environment[key] = nil }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Both pipes at once, so a child filling one cannot stall while we wait on the other.
        let stderrReader = PipeReader(err.fileHandleForReading.fileDescriptor)
        let stdout = PipeReader.readAll(out.fileHandleForReading.fileDescriptor)
        let stderr = stderrReader.result()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}

extension DarkroomCommand {
    /// A migrate the executable refused, with what it said.
    public struct MigrateFailed: Error, CustomStringConvertible {
        public var stderr: String
        public var description: String { "darkroom migrate failed: \(stderr)" }
    }

    /// A fresh database migrated by the executable, and a storage folder of its own (removed
    /// after): where an end-to-end test starts. `name` tells the folder apart in /tmp.
    public static func withMigratedLibrary<T>(_ name: String, _ body: (DarkroomCommand) throws -> T) throws -> T {
        try TestDatabase.withFreshDatabase { url in
            let storage = NSTemporaryDirectory() + "darkroom-\(name)-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: storage) }
            let command = DarkroomCommand(databaseURL: url, storage: storage)
            let migrate = try command.run("migrate")
            guard migrate.status == 0 else { throw MigrateFailed(stderr: migrate.stderr) }
            return try body(command)
        }
    }
}
