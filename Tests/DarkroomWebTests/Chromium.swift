import DarkroomTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's headless Chromium, driven over the DevTools protocol on a pipe
/// (`--remote-debugging-pipe`: JSON messages, each ended by a NUL, on file descriptors 3 and 4),
/// so a test can type into a form, click, read the page and take screenshots as a person would.
final class Chromium {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let executable = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    private let pid: pid_t
    private let commands: Int32
    private let events: Int32
    private var received: [UInt8] = []
    private var nextID = 1
    private var session = ""
    private let profile: String

    init(width: Int = 1280, height: Int = 900) throws {
        guard let executable = Self.executable else {
            throw Failure(description: "chromium is not installed: `make test` installs Debian's chromium package")
        }
        profile =
            FileManager.default.temporaryDirectory.appendingPathComponent("darkroom-chromium-\(UUID().uuidString)").path
        var toBrowser: [Int32] = [0, 0]
        var fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else {
            throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        let devNull = Glibc.open("/dev/null", O_WRONLY)
        posix_spawn_file_actions_adddup2(&actions, devNull, 1)
        posix_spawn_file_actions_adddup2(&actions, devNull, 2)
        let arguments = [
            executable, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
            "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars", "--user-data-dir=\(profile)",
            "--window-size=\(width),\(height)", "about:blank",
        ]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var spawned: pid_t = 0
        let status = posix_spawn(&spawned, executable, &actions, nil, &argv, environ)
        close(devNull)
        close(toBrowser[0])
        close(fromBrowser[1])
        guard status == 0 else {
            throw Failure(description: "cannot start chromium: \(String(cString: strerror(status)))")
        }
        pid = spawned
        commands = toBrowser[1]
        events = fromBrowser[0]

        let target = try call("Target.createTarget", ["url": "about:blank"], inSession: false)
        let attached = try call(
            "Target.attachToTarget", ["targetId": target["targetId"] as? String ?? "", "flatten": true],
            inSession: false)
        session = attached["sessionId"] as? String ?? ""
        _ = try call("Page.enable")
        _ = try call(
            "Emulation.setDeviceMetricsOverride",
            ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
    }

    deinit {
        close(commands)
        close(events)
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// Sends one command and waits for its answer (events in between are skipped).
    @discardableResult
    func call(_ method: String, _ parameters: [String: Any] = [:], inSession: Bool = true) throws -> [String: Any] {
        let id = nextID
        nextID += 1
        var message: [String: Any] = ["id": id, "method": method, "params": parameters]
        if inSession { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(commands, buffer.baseAddress! + offset, buffer.count - offset)
                guard written > 0 else { throw Failure(description: "chromium closed its pipe") }
                offset += written
            }
        }
        while true {
            let reply = try readMessage()
            guard reply["id"] as? Int == id else { continue }
            if let error = reply["error"] as? [String: Any] {
                throw Failure(description: "\(method): \(error["message"] as? String ?? "\(error)")")
            }
            return reply["result"] as? [String: Any] ?? [:]
        }
    }

    private func readMessage() throws -> [String: Any] {
        while true {
            if let end = received.firstIndex(of: 0) {
                let message = Array(received[..<end])
                received.removeSubrange(...end)
                return try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any] ?? [:]
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = read(events, &chunk, chunk.count)
            guard count > 0 else { throw Failure(description: "chromium closed its pipe") }
            received += chunk[..<count]
        }
    }

    /// The value of a JavaScript expression (awaited when it is a promise), as JSON gives it.
    func evaluate(_ expression: String) throws -> Any? {
        let result = try call(
            "Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] as? [String: Any] {
            throw Failure(
                description:
                    "\(expression): \(exception["text"] as? String ?? "exception") \((exception["exception"] as? [String: Any])?["description"] ?? "")"
            )
        }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Opens `url` and waits until the page and its images have loaded.
    func open(_ url: String, seconds: Double = 60) throws {
        try call("Page.navigate", ["url": url])
        try waitForLoad(seconds: seconds)
    }

    /// Waits for the document and every image in it to finish loading (up to `seconds`).
    /// Lazy images below the fold are asked for now, as if the page were scrolled through.
    func waitForLoad(seconds: Double = 60) throws {
        try waitUntil("document.readyState === 'complete'", seconds: seconds)
        try evaluate("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager'); true")
        try waitUntil("Array.from(document.images).every(i => i.complete)", seconds: seconds)
    }

    /// A guard against a hung page, not a timing check (the server under test runs in a process
    /// of its own, so the suites beside it only share the cores).
    func waitUntil(_ condition: String, seconds: Double = 60) throws {
        let held = eventually(timeout: .seconds(seconds), every: .milliseconds(100)) {
            (try? evaluate("!!(\(condition))")) as? Bool == true
        }
        guard held else { throw Failure(description: "timed out after \(seconds)s waiting for \(condition)") }
    }

    /// The page as a PNG (written to `path`) and as JPEG bytes (for checks).
    func screenshot(to path: String) throws -> (png: Data, jpeg: [UInt8]) {
        let png =
            Data(base64Encoded: try call("Page.captureScreenshot", ["format": "png"])["data"] as? String ?? "")
            ?? Data()
        try png.write(to: URL(fileURLWithPath: path))
        let jpeg =
            Data(
                base64Encoded: try call("Page.captureScreenshot", ["format": "jpeg", "quality": 90])["data"] as? String
                    ?? "") ?? Data()
        return (png, [UInt8](jpeg))
    }
}
