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

/// A `darkroom` process left running (a worker), whose stderr is collected as it arrives.
final class RunningCommand: @unchecked Sendable {
    private let process = Process()
    private let condition = NSCondition()
    private var stderr = ""
    private var stderrClosed = false

    init(_ command: DarkroomCommand, _ arguments: [String]) throws {
        process.executableURL = DarkroomCommand.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = command.databaseURL
        environment["DARKROOM_STORAGE"] = command.storage
        environment.merge(TestDatabase.roleEnvironment(forDatabaseAt: command.databaseURL)) { $1 }
        process.environment = environment
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        let descriptor = err.fileHandleForReading.fileDescriptor
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                condition.lock()
                if count > 0 {
                    stderr += String(decoding: buffer[0..<count], as: UTF8.self)
                } else {
                    stderrClosed = true
                }
                condition.broadcast()
                condition.unlock()
                if count <= 0 { return }
            }
        }.start()
    }

    /// The stderr line that contains `text`, once it has been written (nil after `timeout` or
    /// when the process closed stderr without it).
    func line(containing text: String, timeout: TimeInterval = 300) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let line = stderr.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if stderrClosed || !condition.wait(until: deadline) { return nil }
        }
    }

    var output: String {
        condition.lock()
        defer { condition.unlock() }
        return stderr
    }

    /// Sends SIGTERM and waits for the exit status.
    func terminate() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}
