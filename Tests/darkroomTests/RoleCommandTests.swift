import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// The real executable, each command logged in as the role it needs: migrate as the owner,
/// import and worker as a member of the worker role, enqueue as an operator, status as a viewer.
@Suite struct RoleCommandTests {
    @Test func eachCommandRunsAsTheRoleItNeeds() throws {
        try TestDatabase.withFreshDatabase { url in
            let storage = NSTemporaryDirectory() + "darkroom-roles-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: storage) }
            let owner = DarkroomCommand(databaseURL: url, storage: storage)
            let migrate = try owner.run("migrate")
            try #require(migrate.status == 0, "migrate: \(migrate.stderr)")
            let roles = TestDatabase.accessRoles(forDatabaseAt: url)
            #expect(
                migrate.stdout.contains(
                    "roles: viewer \(roles.viewer!), operator \(roles.operatorRole!), worker \(roles.worker!)"))

            let connection = try DatabaseConnection(url)
            var commands: [String: DarkroomCommand] = [:]
            for (login, group) in [("walter", roles.worker!), ("olga", roles.operatorRole!), ("vera", roles.viewer!)] {
                let name = TestDatabase.roleName(login, forDatabaseAt: url)
                try connection.execute(
                    "CREATE ROLE \(try connection.quotedIdentifier(name)) LOGIN IN ROLE \(try connection.quotedIdentifier(group))"
                )
                commands[login] = DarkroomCommand(databaseURL: try TestDatabase.url(url, as: name), storage: storage)
            }
            let (worker, operatorCommand, viewer) = (commands["walter"]!, commands["olga"]!, commands["vera"]!)

            let imported = try worker.run("import", Fixtures.exifSample("gps/DSCN0010.jpg").path)
            try #require(imported.status == 0, "import: \(imported.stderr)")
            let asset = try #require(
                imported.stdout.split(separator: "\t").first.map { String($0.dropFirst("asset ".count)) })

            let edit = #"{"operations":[{"op":"sepia"}]}"#
            let refused = try viewer.run("enqueue", "--asset", asset, "--data", edit)
            #expect(
                refused.status == 1 && refused.stderr.contains("permission denied"), "viewer enqueue: \(refused.stderr)"
            )
            let enqueued = try operatorCommand.run("enqueue", "--asset", asset, "--data", edit)
            try #require(enqueued.status == 0, "enqueue: \(enqueued.stderr)")
            let drained = try worker.run("worker", "--drain")
            #expect(drained.status == 0, "worker: \(drained.stderr)")
            #expect(drained.stdout.contains("1 succeeded, 0 failed"))

            let status = try viewer.run("status")
            #expect(status.status == 0, "status: \(status.stderr)")
            #expect(status.stdout.contains("succeeded   1"))
            let audited = try #require(try AuditTrail(connection).recent(limit: 1).first)
            #expect(
                audited.action == "enqueue_edit"
                    && audited.databaseUser == TestDatabase.roleName("olga", forDatabaseAt: url))
            #expect(
                audited.result == #"{"job_id": \#(enqueued.stdout.trimmingCharacters(in: .whitespacesAndNewlines))}"#)
        }
    }
}
