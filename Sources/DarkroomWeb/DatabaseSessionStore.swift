import Crypto
import Foundation
import Hummingbird
import LibPQ
import Logging
import ServiceLifecycle

/// serve's sessions in PostgreSQL (`darkroom.dashboard_sessions`, through the functions of
/// `dashboard_sessions.sql`), so a restart signs nobody out and any replica serves any browser.
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
        let found = try await pool.withConnection { connection -> (String, Double)? in
            try connection.query(
                "SELECT data::text AS data, seconds_left FROM darkroom.load_session($1)", [.bytes(hash)]
            ).first.map {
                (try $0["data"].decode(String.self), try $0["seconds_left"].decode(Double.self))
            }
        }
        guard let (json, secondsLeft) = found else { return nil }
        guard let object = try? JSONDecoder().decode(type, from: Data(json.utf8)) else {
            throw PersistError.invalidConversion
        }
        return (object, .milliseconds(Int64(secondsLeft * 1000)))
    }

    public func remove(key: String) async throws {
        let hash = Self.tokenHash(key)
        try await pool.withConnection { connection in
            _ = try connection.query("SELECT darkroom.end_session($1)", [.bytes(hash)])
        }
    }

    private func save<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?, onlyNew: Bool)
        async throws -> Bool
    {
        let hash = Self.tokenHash(key)
        let json = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        let seconds = expires.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        return try await pool.withConnection { connection in
            try connection.query(
                "SELECT darkroom.save_session($1, $2::jsonb, $3, $4) AS stored",
                [.bytes(hash), .text(json), .optional(seconds, PostgresBind.double), .bool(onlyNew)])[0]["stored"]
                .decode(Bool.self)
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
                try connection.query("SELECT darkroom.forget_expired_sessions() AS removed")[0]["removed"].decode(
                    Int64.self)
            }
            if removed > 0 { logger.debug("removed ended sessions", metadata: ["sessions": "\(removed)"]) }
        } catch {
            logger.warning("could not remove ended sessions; trying again later", metadata: ["error": "\(error)"])
        }
    }
}
