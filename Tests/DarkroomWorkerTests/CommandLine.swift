import DarkroomTestSupport
import Foundation

/// Runs the built `darkroom` executable, as an operator or a scheduler would.
struct DarkroomCommand {
    let databaseURL: String
    let storage: String

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The executable SwiftPM built next to the test bundle.
    static var executable: URL {
        let folder = Bundle.main.bundleURL.deletingLastPathComponent()
        let candidates = [Bundle.main.bundleURL, folder].map { $0.appendingPathComponent("darkroom") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    @discardableResult
    func run(_ arguments: String...) throws -> Output {
        try run(arguments)
    }

    func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Output {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = databaseURL
        environment["DARKROOM_STORAGE"] = storage
        // `migrate` grants to roles named after the test database, dropped with it.
        environment.merge(TestDatabase.roleEnvironment(forDatabaseAt: databaseURL)) { $1 }
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Both pipes at once, so a child filling one cannot stall while we wait on the other.
        let stderrReader = PipeReader(err.fileHandleForReading.fileDescriptor)
        let stdout = PipeReader.readAll(out.fileHandleForReading.fileDescriptor)
        let stderr = stderrReader.result()
        process.waitUntilExit()
        return Output(status: process.terminationStatus,
                      stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}
