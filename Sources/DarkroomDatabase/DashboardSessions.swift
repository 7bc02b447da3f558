internal import LibPQ

/// The dashboard's sessions and shared keys in PostgreSQL (`darkroom.dashboard_sessions`,
/// through the functions of `dashboard_sessions.sql`): sessions are found by the hash of their
/// token, never the token, so any replica serves any browser and a restart signs nobody out.
public struct DashboardSessions {
    let connection: DatabaseConnection

    public init(_ connection: DatabaseConnection) {
        self.connection = connection
    }

    /// A stored session: its data as JSON text and the seconds it has left.
    public struct Stored: Sendable, Hashable {
        public var json: String
        public var secondsLeft: Double
    }

    /// The live session whose token hashes to `tokenHash`, if any.
    public func load(tokenHash: [UInt8]) throws -> Stored? {
        try connection.query(.loadSession, [.bytes(tokenHash)]).first.map {
            Stored(json: try $0["data"].decode(String.self), secondsLeft: try $0["seconds_left"].decode(Double.self))
        }
    }

    /// Stores `json` under `tokenHash` for `seconds` (nil: the database's default lifetime);
    /// with `onlyNew`, only if no live session has that hash. Whether it was stored.
    public func save(tokenHash: [UInt8], json: String, seconds: Double?, onlyNew: Bool) throws -> Bool {
        try connection.query(
            .saveSession, [.bytes(tokenHash), .text(json), .optional(seconds, PostgresBind.double), .bool(onlyNew)]
        )[0]["stored"].decode(Bool.self)
    }

    /// Ends the session whose token hashes to `tokenHash`.
    public func end(tokenHash: [UInt8]) throws {
        _ = try connection.query(.endSession, [.bytes(tokenHash)])
    }

    /// Removes ended sessions and day-old sign-in failures; how many sessions went.
    public func forgetExpired() throws -> Int64 {
        try connection.query(.forgetExpiredSessions)[0]["removed"].decode(Int64.self)
    }

    /// The key every replica shares for `purpose` (made on first use).
    public func key(for purpose: String) throws -> [UInt8] {
        try connection.query(.dashboardKey, [.text(purpose)])[0]["key"].decode([UInt8].self)
    }
}
