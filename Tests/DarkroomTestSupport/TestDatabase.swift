import DarkroomDatabase
import Foundation
import LibPQ

/// Throwaway PostgreSQL databases, one per test, on the server named by
/// `DARKROOM_TEST_DATABASE_URL`. Tests that need the database fail (never skip) without it.
public enum TestDatabase {
    public static let serverURLVariable = "DARKROOM_TEST_DATABASE_URL"

    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Creates an empty database, passes its connection URL to `body`, and drops it afterwards
    /// (also when `body` throws), disconnecting any sessions `body` left open.
    public static func withFreshDatabase<T>(_ body: (String) throws -> T) throws -> T {
        let (server, name, url) = try create()
        let result: T
        do {
            result = try body(url)
        } catch {
            try? drop(name, on: server)
            throw error
        }
        try drop(name, on: server)
        return result
    }

    public static func withFreshDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
        let (server, name, url) = try create()
        let result: T
        do {
            result = try await body(url)
        } catch {
            try? drop(name, on: server)
            throw error
        }
        try drop(name, on: server)
        return result
    }

    /// The server URL from the environment, or an error that says how to provide it.
    public static func serverURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment[serverURLVariable], !url.isEmpty else {
            throw SetupError(
                description: "\(serverURLVariable) is not set: run the suite with `make test`, which starts "
                    + "a private PostgreSQL and sets \(serverURLVariable) (or set it to a server where you may create databases)"
            )
        }
        return url
    }

    private static func create() throws -> (server: String, name: String, url: String) {
        let server = try serverURL()
        let name = "darkroom_test_" + String(UInt64.random(in: .min ... .max), radix: 16)
        let url = try conninfo(server, replacingDatabaseWith: name)
        let connection = try PostgresConnection(server)
        try connection.execute("CREATE DATABASE \(try connection.quotedIdentifier(name))")
        return (server, name, url)
    }

    private static func drop(_ name: String, on server: String) throws {
        let connection = try PostgresConnection(server)
        try connection.execute("DROP DATABASE IF EXISTS \(try connection.quotedIdentifier(name)) WITH (FORCE)")
        // The roles the test made, named after its database: they hold nothing now it is gone.
        for row in try connection.query(
            "SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)", [.text(name + "_")])
        {
            try connection.execute(
                "DROP ROLE IF EXISTS \(try connection.quotedIdentifier(try row["rolname"].decode(String.self)))")
        }
    }

    /// Role names are cluster-wide and tests run at once in many databases of one server, so a
    /// test's roles are named after its database (`<database>_viewer`, …, `<database>_alice`)
    /// and dropped with it.
    public static func roleName(_ suffix: String, forDatabaseAt url: String) -> String {
        databaseName(of: url) + "_" + suffix
    }

    /// The viewer, operator, worker and serve roles of the test database at `url`.
    public static func accessRoles(forDatabaseAt url: String) -> AccessRoles {
        AccessRoles(
            viewer: roleName("viewer", forDatabaseAt: url), operator: roleName("operator", forDatabaseAt: url),
            worker: roleName("worker", forDatabaseAt: url), serve: roleName("serve", forDatabaseAt: url))
    }

    /// The `DARKROOM_*_ROLE` variables that make `darkroom migrate` use those roles.
    public static func roleEnvironment(forDatabaseAt url: String) -> [String: String] {
        let roles = accessRoles(forDatabaseAt: url)
        return [
            "DARKROOM_VIEWER_ROLE": roles.viewer ?? "", "DARKROOM_OPERATOR_ROLE": roles.operatorRole ?? "",
            "DARKROOM_WORKER_ROLE": roles.worker ?? "", "DARKROOM_SERVE_ROLE": roles.serve ?? "",
        ]
    }

    /// The same URL (or conninfo) logging in as `user` (the test server trusts loopback logins).
    public static func url(_ url: String, as user: String) throws -> String {
        guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") else { return url + " user=\(user)" }
        guard var components = URLComponents(string: url) else {
            throw SetupError(description: "not a valid URL: \(url)")
        }
        components.user = user
        components.password = nil
        guard let changed = components.string else {
            throw SetupError(description: "cannot build a URL for \(user) from \(url)")
        }
        return changed
    }

    /// The database a URL made by `withFreshDatabase` names: its path, or its last `dbname=`.
    static func databaseName(of url: String) -> String {
        if url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") {
            return String((URLComponents(string: url)?.path ?? "").drop { $0 == "/" })
        }
        let last = url.split(separator: " ").last { $0.hasPrefix("dbname=") }
        return String(last?.dropFirst("dbname=".count) ?? "")
    }

    /// The same server, user and options, with another database: the URI's path is replaced, and a
    /// `key=value` string gets a trailing `dbname`, which libpq lets override earlier ones.
    static func conninfo(_ server: String, replacingDatabaseWith name: String) throws -> String {
        guard server.hasPrefix("postgresql://") || server.hasPrefix("postgres://") else {
            return server + " dbname=\(name)"
        }
        guard var components = URLComponents(string: server) else {
            throw SetupError(description: "\(serverURLVariable) is not a valid URL: \(server)")
        }
        components.path = "/" + name
        guard let url = components.string else {
            throw SetupError(description: "cannot build a database URL from \(server)")
        }
        return url
    }
}
