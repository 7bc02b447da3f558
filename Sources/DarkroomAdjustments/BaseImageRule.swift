/// PhotoKit's can-handle rule, deciding what a new edit is rendered from.
///
/// When an asset already has a current adjustment and the new edit's editor can handle it
/// (same format identifier, a version the editor reads), the new edit *replaces* it: it is
/// rendered from what the current one was rendered from — the original for a single edit
/// (Sepia instead of Posterize, not on top), or the layer beneath it in a chain, which is
/// kept. When it cannot (a different editor), the new edit is rendered on top of the
/// current rendered output, which becomes its base, so the chain is never lost.
public enum BaseImage: Sendable, Equatable {
    /// Render from the untouched original; the new adjustment has no base.
    case original
    /// Render on top of adjustment `id`'s rendered output; it becomes the new base.
    case rendered(adjustmentID: Int64)
}

/// The current adjustment as the rule sees it.
public struct CurrentAdjustment: Sendable, Equatable {
    public var id: Int64
    public var formatIdentifier: String
    public var formatVersion: String
    /// The layer it was rendered on top of, if any.
    public var baseAdjustmentID: Int64?

    public init(id: Int64, formatIdentifier: String, formatVersion: String, baseAdjustmentID: Int64? = nil) {
        self.id = id
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.baseAdjustmentID = baseAdjustmentID
    }
}

extension EditorRegistry {
    /// Where an edit in `identifier` starts from, given the asset's current adjustment.
    /// A pure decision: no I/O, unit-tested.
    public func baseImage(forEditIn identifier: String, over current: CurrentAdjustment?) -> BaseImage {
        guard let current else { return .original }
        guard current.formatIdentifier == identifier, let editor = editors[identifier],
            let version = SemanticVersion(current.formatVersion), editor.canRead(version)
        else {
            return .rendered(adjustmentID: current.id)
        }
        return current.baseAdjustmentID.map { .rendered(adjustmentID: $0) } ?? .original
    }
}
