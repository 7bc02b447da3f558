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
    /// both are only for choosing a worker.
    case rerender(formatIdentifier: String?, targetVersion: String?)

    /// The value of `darkroom.jobs.kind`.
    public var kind: String {
        switch self {
        case .edit: return "edit"
        case .revert: return "revert"
        case .revertLast: return "revert_last"
        case .rerender: return "rerender"
        }
    }

    init(kind: String, formatIdentifier: String?, formatVersion: String?, data: [UInt8]?) throws {
        switch kind {
        case "edit":
            guard let formatIdentifier, let formatVersion, let data else {
                throw QueueError.invalidJob("an edit job without its format identifier, version or data", hint: nil)
            }
            self = .edit(formatIdentifier: formatIdentifier, formatVersion: formatVersion, data: data)
        case "revert": self = .revert
        case "revert_last": self = .revertLast
        case "rerender": self = .rerender(formatIdentifier: formatIdentifier, targetVersion: formatVersion)
        default:
            throw QueueError.invalidJob(
                "unknown job kind \"\(kind)\"", hint: "this worker is older than the schema; upgrade it")
        }
    }
}
