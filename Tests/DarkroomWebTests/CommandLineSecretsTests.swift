import DarkroomTestSupport
import Foundation
import Testing

/// No secret in a command line (every local user reads it in `ps`) or in a message.
@Suite struct CommandLineSecretsTests {
    @Test func aPasswordInAURLFlagIsRefusedWithTheWayOut() async throws {
        try await TestDatabase.withFreshDatabase { url in
            let darkroom = DarkroomCommand(databaseURL: url, storage: "/nonexistent")
            try #require(try darkroom.run("migrate").status == 0)
            let withPassword = url.replacingOccurrences(
                of: "postgresql://darkroom@", with: "postgresql://darkroom:hunter22@")
            #expect(withPassword != url)
            for flag in [
                ["status", "--database-url", withPassword],
                ["worker", "--drain", "--listen-database-url", withPassword],
            ] {
                let refused = try darkroom.run(flag)
                #expect(refused.status == 1, "\(flag[0]): \(refused.stderr)")
                #expect(refused.stderr.contains("ps") && refused.stderr.contains("_FILE"), "\(refused.stderr)")
                #expect(!refused.stderr.contains("hunter22"))
            }
            let unknown = try darkroom.run("status", "--aws-secret-access-key", "s3cret")
            #expect(unknown.status != 0, "the S3 secret has no flag")

            // The URL from a file, as a container platform mounts a secret.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("url-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            try (url + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let fromFile = try darkroom.run(
                ["status"], environment: ["DATABASE_URL_FILE": file], removing: ["DATABASE_URL"])
            #expect(fromFile.status == 0, "\(fromFile.stderr)")

            // A Jobs/ folder in the current folder is not run: whoever can write there is not the owner.
            let planted = FileManager.default.temporaryDirectory.appendingPathComponent("cwd-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: planted) }
            try FileManager.default.createDirectory(atPath: planted + "/Jobs", withIntermediateDirectories: true)
            try "-- summary: planted\n-- schedule: never\nDROP SCHEMA darkroom CASCADE\n".write(
                toFile: planted + "/Jobs/planted.sql", atomically: true, encoding: .utf8)
            let run = try darkroom.run(["job", "run", "planted"], removing: ["DARKROOM_JOBS_DIR"], in: planted)
            #expect(run.status != 0 && run.stderr.contains("--jobs-dir"), "\(run.stderr)")
            #expect(try darkroom.run("status").status == 0, "the schema is still there")

            // A URL libpq cannot read: its message quotes the part it choked on, never shown.
            let malformed = try darkroom.run(
                ["status"], environment: ["DATABASE_URL": "postgresql://darkroom:p%zzhunter22@127.0.0.1:1/x"])
            #expect(malformed.status == 2)
            #expect(!malformed.stderr.contains("hunter22"), "\(malformed.stderr)")
        }
    }
}
