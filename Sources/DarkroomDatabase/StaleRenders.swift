internal import LibPQ

/// Renders a darkroom upgrade changed: assets whose current chain was rendered with older math
/// or other output settings than a build (`RenderBuild.json`, passed through as jsonb). SQL
/// owns the comparison (`darkroom.stale_renders`); this asks it.
public struct StaleRenders {
    let connection: DatabaseConnection

    public init(_ connection: DatabaseConnection) {
        self.connection = connection
    }

    /// `rerender --stale --dry-run`: stale assets by reason (`math`, `output`, `unrecorded`),
    /// and `any` (each asset once) (`darkroom.stale_counts`).
    public func counts(build: String) throws -> [StaleCount] {
        try connection.query(
            .readStaleCounts, [.text(build)]
        ).map { StaleCount(reason: try $0["reason"].decode(String.self), assets: try $0["assets"].decode(Int64.self)) }
    }

    /// The stale assets, each once: the dashboard's overview (`darkroom.stale_count`).
    public func count(build: String) throws -> Int64 {
        try connection.query(.readStaleCount, [.text(build)])[0]["n"].decode(Int64.self)
    }

    /// Queues a whole-chain re-render of each stale asset not already having one queued
    /// (`darkroom.enqueue_stale_rerender`). Returns how many were queued.
    public func enqueue(build: String, priority: Int = -20, batch: String? = nil) throws -> Int {
        try connection.query(
            .queueStaleRerender,
            [.text(build), .int(Int64(priority)), .optional(batch, PostgresBind.text)]
        )[0]["queued"].decode(Int.self)
    }
}

/// Stale assets for one reason (`darkroom.stale_counts`).
public struct StaleCount: Sendable, Equatable {
    /// `math`, `output`, `unrecorded`, or `any` (every stale asset once).
    public var reason: String
    public var assets: Int64

    public init(reason: String, assets: Int64) {
        self.reason = reason
        self.assets = assets
    }
}
