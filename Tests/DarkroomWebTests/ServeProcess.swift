import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `darkroom serve` as an operator starts it: the built executable in a process of its own, on a
/// port the kernel picks. Its handlers run on that process's threads, so what the test process
/// does meanwhile (synchronous suites holding Swift's cooperative threads) cannot delay a page.
final class ServeProcess {
    let process: Process
    /// `http://127.0.0.1:PORT`, from the line serve prints once it listens.
    let base: String

    init(_ darkroom: DarkroomBinary, arguments: [String], seconds: Double = 60) throws {
        let output = Pipe()
        process = try darkroom.start(["serve", "--listen", "127.0.0.1:0"] + arguments, output: output)
        var line: [UInt8] = []
        let descriptor = output.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(seconds)
        while line.last != UInt8(ascii: "\n") {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard poll(&ready, 1, left) > 0 else {
                process.terminate()
                throw Chromium.Failure(description: "darkroom serve printed no address within \(Int(seconds)) s")
            }
            var byte: UInt8 = 0
            guard read(descriptor, &byte, 1) == 1 else {
                throw Chromium.Failure(
                    description:
                        "darkroom serve ended before it listened (exit \(process.isRunning ? -1 : process.terminationStatus))"
                )
            }
            line.append(byte)
        }
        // "dashboard at http://127.0.0.1:PORT/"
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let start = text.range(of: "http://") else {
            throw Chromium.Failure(description: "darkroom serve printed \(text)")
        }
        base = String(text[start.lowerBound...].dropLast(text.hasSuffix("/") ? 1 : 0))
    }

    /// SIGTERM, as systemd stops it; serve shuts down gracefully.
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }
}
