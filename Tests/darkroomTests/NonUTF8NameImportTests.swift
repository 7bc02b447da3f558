import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// A photo whose file name is not UTF-8 (and carries a terminal escape) is imported, from its
/// folder and when named on the command line, and every line naming it shows the bytes escaped.
@Suite(.serialized) struct NonUTF8NameImportTests {
    /// `\xFF\xFE` is no UTF-8; ESC `[31m` would turn a terminal red.
    static let name: [UInt8] = [0xFF, 0xFE] + Array("evil".utf8) + [0x1B] + Array("[31m.jpg".utf8)
    static let shown = #"\xFF\xFEevil\u{1B}[31m.jpg"#

    static func withFolder(_ body: (DarkroomCommand, String, DatabaseConnection) throws -> Void) throws {
        try DarkroomCommand.withMigratedLibrary("names") { command in
            let photos = NSTemporaryDirectory() + "darkroom-names-photos-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: photos) }
            try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
            // The name's bytes as they are: Foundation's paths would turn them into U+FFFD.
            let path = Array(photos.utf8) + [UInt8(ascii: "/")] + name + [0]
            let bytes = try Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg"))
            let descriptor = path.withUnsafeBufferPointer {
                $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
            }
            try #require(descriptor >= 0)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
            close(descriptor)
            try body(command, photos, try DatabaseConnection(command.databaseURL))
        }
    }

    static func assets(_ connection: DatabaseConnection) throws -> Int {
        try connection.query("SELECT count(*)::int AS n FROM darkroom.assets")[0]["n"].decode(Int.self)
    }

    @Test func aFolderImportsItAndShowsItsNameEscaped() throws {
        try Self.withFolder { command, photos, connection in
            let imported = try command.run("import", photos)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("\timported\t") && imported.stdout.contains(photos + "/" + Self.shown))
            #expect(!imported.stdout.utf8.contains(0x1B), "no raw escape reaches the terminal")
            #expect(try Self.assets(connection) == 1)
            // Its position was read from its EXIF as for any photo.
            let latitude = try connection.query("SELECT latitude FROM darkroom.assets")[0]["latitude"]
                .decode(Double?.self)
            #expect(latitude != nil)
        }
    }

    /// Named on the command line, through a shell, as bytes.
    @Test func aPathGivenAsBytesImportsIt() throws {
        try Self.withFolder { command, photos, connection in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [
                "-c", #"exec "$1" import "$(printf '%s/\377\376evil\033[31m.jpg' "$2")""#, "sh",
                DarkroomCommand.executable.path, photos,
            ]
            var environment = ProcessInfo.processInfo.environment
            environment["DATABASE_URL"] = command.databaseURL
            environment["DARKROOM_STORAGE"] = command.storage
            environment.merge(TestDatabase.roleEnvironment(forDatabaseAt: command.databaseURL)) { $1 }
            process.environment = environment
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let text = String(decoding: stdout, as: UTF8.self)
            #expect(text.contains("\timported\t") && text.contains(photos + "/" + Self.shown), "\(text)")
            #expect(try Self.assets(connection) == 1)
        }
    }
}
