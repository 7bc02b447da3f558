import ArgumentParser
import DarkroomDatabase
import Foundation

extension Darkroom {
    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or upgrade the darkroom schema (safe to run any number of times).",
            discussion: """
                Also creates, if missing, four group roles that cannot log in and grants them \
                exactly what SQL/definitions/roles.sql says: the viewer reads the views, the \
                operator also calls the operator API, the worker calls the worker API, serve keeps \
                the dashboard's sessions. A role name not given keeps the one the last migration \
                used (darkroom_viewer, darkroom_operator, darkroom_worker, darkroom_serve at first). \
                Log in as roles of your own: CREATE ROLE alice LOGIN IN ROLE darkroom_operator; \
                serve's login: CREATE ROLE dashboard LOGIN IN ROLE darkroom_operator, darkroom_serve.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(
            name: .customLong("viewer-role"), help: "The role that reads the views (default: $DARKROOM_VIEWER_ROLE).")
        var viewerRole: String?

        @Option(
            name: .customLong("operator-role"),
            help: "The role that also calls the operator API (default: $DARKROOM_OPERATOR_ROLE).")
        var operatorRole: String?

        @Option(
            name: .customLong("worker-role"),
            help: "The role workers and imports run as (default: $DARKROOM_WORKER_ROLE).")
        var workerRole: String?

        @Option(
            name: .customLong("serve-role"),
            help:
                "The role whose members keep the dashboard's sessions: serve's login only (default: $DARKROOM_SERVE_ROLE)."
        )
        var serveRole: String?

        func run() throws {
            try withExitCodes {
                let logger = global.makeLogger()
                let connection = try Environment.connect(global)
                let environment = ProcessInfo.processInfo.environment
                func name(_ flag: String?, _ variable: String) -> String? {
                    (flag ?? environment[variable]).flatMap { $0.isEmpty ? nil : $0 }
                }
                let roles = AccessRoles(
                    viewer: name(viewerRole, "DARKROOM_VIEWER_ROLE"),
                    operator: name(operatorRole, "DARKROOM_OPERATOR_ROLE"),
                    worker: name(workerRole, "DARKROOM_WORKER_ROLE"), serve: name(serveRole, "DARKROOM_SERVE_ROLE"))
                let applied: [Int]
                do {
                    applied = try Migrator(roles: roles).migrate(on: connection, logger: logger)
                } catch let error as QueueError where error.code == .roleNamesRefused {
                    throw CommandFailure.invalidInput(error.message)
                } catch let error as QueueError where error.code == .grantsFailed {
                    // A role that cannot be created means the migrating role lacks CREATEROLE,
                    // which only an administrator can fix.
                    throw CommandFailure.cannotWork(error.message)
                }
                print(
                    applied.isEmpty
                        ? "schema darkroom is up to date"
                        : "applied migrations \(applied.map(String.init).joined(separator: ", "))")
                let granted = try AccessRoles.recorded(on: connection).map { "\($0.kind) \($0.name)" }
                print("roles: " + granted.joined(separator: ", "))
            }
        }
    }
}
