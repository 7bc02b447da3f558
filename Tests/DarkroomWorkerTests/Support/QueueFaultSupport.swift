import ByteStreams
import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import LibPQ
import Testing

/// A `darkroom worker` process the test can signal, with its output in files (a pipe could
/// fill up and stall a chatty worker).
final class WorkerProcess {
    let process = Process()
    let outputPath: String
    let errorPath: String

    /// `launcher` runs the worker through another program, e.g. `["/usr/sbin/ip", "netns", "exec", name]`,
    /// which must exec it in place so that `pid` stays the worker's.
    init(
        _ command: DarkroomCommand, _ arguments: [String], environment extra: [String: String] = [:],
        launcher: [String] = []
    ) throws {
        let base = NSTemporaryDirectory() + "darkroom-worker-" + UUID().uuidString
        outputPath = base + ".out"
        errorPath = base + ".err"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [DarkroomCommand.executable.path] + arguments
        } else {
            process.executableURL = DarkroomCommand.executable
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = command.databaseURL
        environment["DARKROOM_STORAGE"] = command.storage
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: outputPath)
        try? FileManager.default.removeItem(atPath: errorPath)
    }

    var pid: Int32 { process.processIdentifier }
    var stdout: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// The exit status, or nil if it is still running after `timeout`.
    func wait(timeout: Duration) -> Int32? {
        guard eventually(timeout: timeout, { !process.isRunning }) else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// A fresh database, migrated storage, and helpers to make photos and poll for states.
struct QueueFaultFixture {
    let command: DarkroomCommand
    let connection: DatabaseConnection
    let storage: String
    let url: String

    static func with(_ body: (QueueFaultFixture) throws -> Void) throws {
        try TestDatabase.withFreshDatabase { url in
            let storage = NSTemporaryDirectory() + "darkroom-fault-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: storage) }
            let command = DarkroomCommand(databaseURL: url, storage: storage)
            let migrate = try command.run("migrate")
            try #require(migrate.status == 0, "migrate: \(migrate.stderr)")
            try body(
                QueueFaultFixture(command: command, connection: try DatabaseConnection(url), storage: storage, url: url)
            )
        }
    }

    /// A synthetic photo (a gradient) of the given size, imported; returns its asset id.
    func importPhoto(width: Int, height: Int, seed: UInt8 = 0) throws -> Int64 {
        let path = NSTemporaryDirectory() + "darkroom-photo-\(UUID().uuidString).jpg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try FileUpload(finalPath: path)
        let encoder = try JPEGEncoder(sink: file)
        try encoder.start(width: width, height: height, encoding: JPEGEncoding(quality: 90))
        var row = [UInt8](repeating: 0, count: width * 3)
        for y in 0..<height {
            for x in 0..<width {
                row[x * 3] = UInt8(truncatingIfNeeded: x &+ Int(seed))
                row[x * 3 + 1] = UInt8(truncatingIfNeeded: y)
                row[x * 3 + 2] = UInt8(truncatingIfNeeded: x ^ y)
            }
            try row.withUnsafeBytes { try encoder.writeRows(from: $0, rowStride: width * 3, rowCount: 1) }
        }
        try encoder.finish()
        try file.commit()
        let imported = try command.run("import", path)
        try #require(imported.status == 0, "import: \(imported.stderr)")
        let fields = imported.stdout.split(separator: "\t")
        return try #require(Int64(fields[0].dropFirst("asset ".count)))
    }

    func enqueue(_ asset: Int64, _ json: String = #"{"operations":[{"op":"sepia"},{"op":"vignette"}]}"#) throws -> Int64
    {
        try connection.query(
            "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::jsonb) AS id",
            [.int(asset), .text(json)])[0]["id"].decode(Int64.self)
    }

    /// One value; after the server restarted (soak tests restart it), reconnects once.
    func value(_ sql: String, _ binds: [PostgresBind] = []) throws -> PostgresCell {
        do {
            return try connection.query(sql, binds)[0][0]
        } catch let error as DatabaseError where error.isConnectionFailure {
            try connection.reset()
            return try connection.query(sql, binds)[0][0]
        }
    }

    /// Polls until `sql` returns true; after `timeout` throws `WaitTimeout`, which fails the test.
    func waitUntil(_ what: String, timeout: Duration = .seconds(60), _ sql: String, _ binds: [PostgresBind] = []) throws
    {
        try DarkroomTestSupport.waitUntil(what, timeout: timeout) { try value(sql, binds).bool == true }
    }

    /// Files under renders/ whose names are not temporary, relative to the storage root.
    func visibleRenders() throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: storage + "/renders")
            .filter { $0.hasSuffix(".jpg") && !($0 as NSString).lastPathComponent.hasPrefix(".") }
            .map { "renders/" + $0 }.sorted()
    }

    func temporaryRenders() throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: storage + "/renders").filter { $0.hasSuffix(".partial") }
    }
}
