/// What a job asks a worker to do, decoded from `darkroom.jobs.kind` and its format columns.
public enum JobWork: Sendable, Hashable {
    /// Apply an adjustment; the can-handle rule picks what it is rendered from.
    case edit(formatIdentifier: String, formatVersion: String, data: [UInt8])
    /// Back to the original: every edit removed (PhotoKit's revert).
    case revert
    /// Remove the top layer of the current chain; the layers beneath are re-rendered.
    case revertLast
    /// Replay the current chain from the original with the worker's code. `formatIdentifier`
    /// names the upgraded editor and `targetVersion` the version the re-render must reach;
    /// both are only for choosing a worker. `filter` is a filter upgrade's: the version its
    /// older versions are rewritten to in the replayed layers.
    case rerender(formatIdentifier: String?, targetVersion: String?, filter: FilterUpgrade? = nil)
    /// Write the renditions the top layer's record lacks (`darkroom.missing_renditions`), scaled
    /// from its stored render; the look and its records stay.
    case renditions

    /// The value of `darkroom.jobs.kind`.
    public var kind: String {
        switch self {
        case .edit: return "edit"
        case .revert: return "revert"
        case .revertLast: return "revert_last"
        case .rerender: return "rerender"
        case .renditions: return "renditions"
        }
    }

    init(
        kind: String, formatIdentifier: String?, formatVersion: String?, data: [UInt8]?,
        filter: FilterUpgrade? = nil
    ) throws {
        switch kind {
        case "edit":
            guard let formatIdentifier, let formatVersion, let data else {
                throw QueueError.invalidJob("an edit job without its format identifier, version or data", hint: nil)
            }
            self = .edit(formatIdentifier: formatIdentifier, formatVersion: formatVersion, data: data)
        case "revert": self = .revert
        case "revert_last": self = .revertLast
        case "renditions": self = .renditions
        case "rerender":
            self = .rerender(formatIdentifier: formatIdentifier, targetVersion: formatVersion, filter: filter)
        default:
            throw QueueError.invalidJob(
                "unknown job kind \"\(kind)\"", hint: "this worker is older than the schema; upgrade it")
        }
    }
}

/// The version a filter upgrade brings (`darkroom.enqueue_filter_rerender` chose it and stored
/// it in the job): every older version of `name` in the replayed chain becomes this one.
public struct FilterUpgrade: Sendable, Hashable {
    public var name: String
    public var version: String
    /// The SHA-256 of this version's LUT, as `darkroom.filters` records it.
    public var sha256: String

    public init(name: String, version: String, sha256: String) {
        self.name = name
        self.version = version
        self.sha256 = sha256
    }
}
