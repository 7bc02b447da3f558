import Foundation
internal import LibPQ

/// The fleet and the flow through it, for `darkroom status` and the dashboard: each read is one
/// view (`worker_status`, `throughput`, `waiting_for_editor`), so both show the same numbers.
extension JobQueue {
    /// Every worker that reported in and is not yet forgotten, by name.
    public func workers() throws -> [WorkerStatus] {
        var workers: [WorkerStatus] = []
        for row in try connection.query(.readWorkers) {
            let name = try row["name"].decode(String.self)
            if workers.last?.name != name {
                workers.append(
                    WorkerStatus(
                        name: name, host: try row["host"].decode(String.self), pid: try row["pid"].decode(Int.self),
                        startedAt: try row["started_at"].decode(Date.self),
                        lastSeenAt: try row["last_seen_at"].decode(Date.self),
                        silence: .seconds(try row["silent_seconds"].decode(Double.self)),
                        isAlive: try row["alive"].decode(Bool.self), isStopping: try row["stopping"].decode(Bool.self),
                        slotsBusy: try row["running"].decode(Int.self), rendering: [],
                        memory: try Self.memoryReport(row)))
            }
            if let jobID = try row["job_id"].decode(Int64?.self) {
                workers[workers.count - 1].rendering.append(
                    WorkerStatus.RunningJob(jobID: jobID, assetID: try row["asset_id"].decode(Int64.self)))
            }
        }
        return workers
    }

    /// nil for a worker that does not say (an older release).
    private static func memoryReport(_ row: PostgresRow) throws -> WorkerMemoryReport? {
        guard let reserved = try row["memory_reserved"].decode(Int?.self),
            let waiting = try row["memory_waiting"].decode(Int?.self)
        else { return nil }
        return WorkerMemoryReport(reservedBytes: reserved, jobsWaiting: waiting)
    }

    /// Jobs finished in the last hour (`darkroom.throughput`).
    public func throughput() throws -> Throughput {
        let row = try connection.query(
            .readThroughput)[0]
        return Throughput(
            succeeded: try row["succeeded"].decode(Int.self), failed: try row["failed"].decode(Int.self),
            cancelled: try row["cancelled"].decode(Int.self), jobsPerSecond: try row["rate"].decode(Double.self))
    }

    /// Queued jobs no live worker can run, grouped by what they need (`darkroom.waiting_for_editor`).
    public func waitingForEditor() throws -> [WaitingForEditor] {
        try connection.query(
            .readWaitingForEditor
        ).map { row in
            WaitingForEditor(
                kind: try row["kind"].decode(String.self),
                formatIdentifier: try row["format_identifier"].decode(String?.self),
                formatVersion: try row["format_version"].decode(String?.self),
                jobs: try row["jobs"].decode(Int.self), oldest: try row["oldest"].decode(Date.self))
        }
    }
}

/// A row of `darkroom.worker_status`.
public struct WorkerStatus: Sendable, Hashable {
    public struct RunningJob: Sendable, Hashable {
        public var jobID: Int64
        public var assetID: Int64
    }

    public var name: String
    public var host: String
    public var pid: Int
    public var startedAt: Date
    public var lastSeenAt: Date
    /// Since its last heartbeat.
    public var silence: Duration
    /// Heard from within two leases.
    public var isAlive: Bool
    public var isStopping: Bool
    /// The jobs it said it holds at its last heartbeat.
    public var slotsBusy: Int
    /// The jobs the queue has leased to it now, by id.
    public var rendering: [RunningJob]
    /// Its memory budget's use at its last heartbeat; nil when it does not say.
    public var memory: WorkerMemoryReport?
}

/// The last hour's finished jobs (`darkroom.throughput`).
public struct Throughput: Sendable, Hashable {
    public var succeeded: Int
    public var failed: Int
    public var cancelled: Int
    /// Succeeded and failed per second over the hour.
    public var jobsPerSecond: Double
}

/// A group of `darkroom.waiting_for_editor`: queued jobs that wait for a newer worker.
public struct WaitingForEditor: Sendable, Hashable {
    public var kind: String
    public var formatIdentifier: String?
    public var formatVersion: String?
    public var jobs: Int
    public var oldest: Date
}
