import DarkroomDatabase
import Foundation
import LibPQ
import Logging

extension Logger {
    /// Tests check behaviour, not log lines; keep the output readable.
    public static let quiet = Logger(label: "darkroom.tests", factory: { _ in SwiftLogNoOpLogHandler() })
}

/// A fresh, migrated database and one connection to it (as the owner).
public func withQueueDatabase<T>(_ body: (_ url: String, _ connection: DatabaseConnection) throws -> T) throws -> T {
    try TestDatabase.withFreshDatabase { url in
        let connection = try DatabaseConnection(url)
        try Migrator.forTestDatabase(url).migrate(on: connection, logger: .quiet)
        return try body(url, connection)
    }
}

extension Migrator {
    /// darkroom's migrator granting to roles named after the test database at `url`, which
    /// `TestDatabase` drops with the database.
    public static func forTestDatabase(_ url: String) -> Migrator {
        Migrator(roles: TestDatabase.accessRoles(forDatabaseAt: url))
    }
}

/// A distinct valid asset per `seed`.
public func sampleAsset(_ seed: Int, path: String? = nil) -> NewAsset {
    NewAsset(
        originalPath: path ?? "photos/IMG_\(seed).jpg",
        contentSHA256: String(repeating: String(format: "%02x", seed % 256), count: 32),
        byteSize: 1000 + Int64(seed), pixelWidth: 640, pixelHeight: 480)
}

public func registerAsset(_ seed: Int, on connection: DatabaseConnection) throws -> Int64 {
    try AssetStore(connection).register(sampleAsset(seed)).id
}

public let sampleData = Array(#"{"exposure": 0.5}"#.utf8)

extension JobQueue {
    /// Enqueues a valid edit of `assetID`.
    public func enqueueSample(assetID: Int64, priority: Int = 0) throws -> Int64 {
        try enqueue(
            assetID: assetID, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0",
            data: sampleData, priority: priority)
    }
}

public func sampleAdjustment(for job: ClaimedJob, base: Int64? = nil) -> NewAdjustment {
    NewAdjustment(
        formatIdentifier: job.formatIdentifier ?? "io.darkroom.pipeline", formatVersion: job.formatVersion ?? "1.0",
        data: job.data ?? [],
        baseAdjustmentID: base, renderedPath: "rendered/\(job.id).jpg",
        renderedWidth: 640, renderedHeight: 480, renderedBytes: 12_345)
}

/// Runs each body on its own thread, all at once, and returns their results in order.
/// (Real threads, because the bodies block on database calls.)
public func runConcurrently<T: Sendable>(_ bodies: [@Sendable () throws -> T]) throws -> [T] {
    let results = ResultBox<T>(count: bodies.count)
    let group = DispatchGroup()
    for (index, body) in bodies.enumerated() {
        group.enter()
        Thread.detachNewThread {
            results.set(index, Result { try body() })
            group.leave()
        }
    }
    group.wait()
    return try results.values().map { try $0.get() }
}

private final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<T, any Error>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<T, any Error>) {
        lock.withLock { results[index] = result }
    }

    func values() -> [Result<T, any Error>] {
        lock.withLock { results.map { $0! } }
    }
}

/// Reads one value with plain SQL, for checks that should not go through the code under test.
public func scalar(_ connection: DatabaseConnection, _ sql: String, _ binds: [PostgresBind] = []) throws -> PostgresCell
{
    try connection.query(sql, binds)[0][0]
}
