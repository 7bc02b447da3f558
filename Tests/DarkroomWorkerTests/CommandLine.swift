import DarkroomTestSupport
import Foundation

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
