import Crypto
import DarkroomDatabase
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Timing

/// serve's sessions in PostgreSQL (`darkroom.dashboard_sessions`, through `DashboardSessions`),
/// so a restart signs nobody out and any replica serves any browser.
/// Only the SHA-256 of a session's token is stored. As a service it removes ended sessions and
/// day-old sign-in failures every `cleanupInterval` until shutdown.
public struct DatabaseSessionStore: PersistDriver {
    let pool: DatabasePool
    let cleanupInterval: Duration
    let logger: Logger

    public init(pool: DatabasePool, cleanupInterval: Duration = .seconds(300), logger: Logger) {
        self.pool = pool
        self.cleanupInterval = cleanupInterval
        self.logger = logger
    }

    /// The stored key: the SHA-256 of the token (with Hummingbird's key prefix), never the token.
    public static func tokenHash(_ key: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(key.utf8)))
    }

    public func create<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
        guard try await save(key: key, value: value, expires: expires, onlyNew: true) else {
            throw PersistError.duplicate
        }
    }

    public func set<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
        _ = try await save(key: key, value: value, expires: expires, onlyNew: false)
    }

    public func get<Object: Codable & Sendable>(key: String, as type: Object.Type) async throws -> Object? {
        try await getWithTTL(key: key, as: type)?.object
    }

    public func getWithTTL<Object: Codable & Sendable>(key: String, as type: Object.Type) async throws -> (
        object: Object, ttl: Duration?
    )? {
        let hash = Self.tokenHash(key)
        let found = try await pool.withConnection { connection in
            try DashboardSessions(connection).load(tokenHash: hash)
        }
        guard let found else { return nil }
        guard let object = try? JSONDecoder().decode(type, from: Data(found.json.utf8)) else {
            throw PersistError.invalidConversion
        }
        return (object, .milliseconds(Int64(found.secondsLeft * 1000)))
    }

    public func remove(key: String) async throws {
        let hash = Self.tokenHash(key)
        try await pool.withConnection { connection in
            try DashboardSessions(connection).end(tokenHash: hash)
        }
    }

    private func save<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?, onlyNew: Bool)
        async throws -> Bool
    {
        let hash = Self.tokenHash(key)
        let json = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        let seconds = expires.map(\.seconds)
        return try await pool.withConnection { connection in
            try DashboardSessions(connection).save(tokenHash: hash, json: json, seconds: seconds, onlyNew: onlyNew)
        }
    }

    /// Removes ended sessions now and then until serve shuts down.
    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    await forgetExpired()
                    try await Task.sleep(for: cleanupInterval)
                }
            }
        } catch is CancellationError {
            return
        }
    }

    func forgetExpired() async {
        do {
            let removed = try await pool.withConnection { connection in
                try DashboardSessions(connection).forgetExpired()
            }
            if removed > 0 { logger.debug("removed ended sessions", metadata: ["sessions": "\(removed)"]) }
        } catch {
            logger.warning("could not remove ended sessions; trying again later", metadata: ["error": "\(error)"])
        }
    }
}
