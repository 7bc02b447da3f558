import Foundation

/// A format a worker can render: jobs whose identifier matches and whose version lies in
/// `minVersion...maxVersion` (semver precedence, inclusive). `claim` hands a worker only such
/// jobs, so during a rolling upgrade a job written by a newer editor waits for a newer worker
/// instead of failing on an older one.
/// The database decides (`darkroom.can_run`), comparing versions by semver precedence
/// (`darkroom.semver_sort_key`).
public struct ClaimableFormat: Sendable, Hashable, Codable {
    public var identifier: String
    public var minVersion: String
    public var maxVersion: String

    public init(identifier: String, minVersion: String, maxVersion: String) {
        self.identifier = identifier
        self.minVersion = minVersion
        self.maxVersion = maxVersion
    }

    enum CodingKeys: String, CodingKey {
        case identifier
        case minVersion = "min"
        case maxVersion = "max"
    }

    /// The JSON `darkroom.claim_jobs` and `darkroom.heartbeat` take.
    static func json(_ formats: [ClaimableFormat]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding plain strings cannot fail.
        return String(decoding: (try? encoder.encode(formats)) ?? Data("[]".utf8), as: UTF8.self)
    }
}

/// Who is heartbeating: the name recorded in `jobs.leased_by`, where it runs, and its darkroom
/// release (`worker_status.release`; nil for a caller that does not say).
public struct WorkerIdentity: Sendable, Hashable {
    public var name: String
    public var host: String
    public var pid: Int32
    public var release: String?

    public init(name: String, host: String, pid: Int32, release: String? = nil) {
        self.name = name
        self.host = host
        self.pid = pid
        self.release = release
    }
}

/// How much of its memory budget a worker's renders hold and how many jobs wait for theirs, as
/// its heartbeat reports them (`worker_status.memory_reserved`, `memory_waiting`).
public struct WorkerMemoryReport: Sendable, Hashable {
    public var reservedBytes: Int
    public var jobsWaiting: Int

    public init(reservedBytes: Int, jobsWaiting: Int) {
        self.reservedBytes = reservedBytes
        self.jobsWaiting = jobsWaiting
    }
}
