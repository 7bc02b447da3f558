/// What a finished job leaves behind: the records it adds and what the asset shows after it.
public struct JobResult: Sendable, Hashable {
    public enum Change: Sendable, Hashable {
        /// New adjustment records, bottom first (never empty). The first keeps its own
        /// `baseAdjustmentID`; each later one is based on the record inserted just before it.
        /// The last becomes the asset's current adjustment.
        case layers([NewAdjustment])
        /// The asset shows its original again (a revert).
        case original(outcome: String)
        /// Nothing to do; the asset keeps what it shows (kept in `darkroom.jobs.outcome`).
        case none(outcome: String)
        /// Rendition files written for the asset's current adjustment, each replacing its file of
        /// the same name (JSON objects as `rendered_with.renditions` lists them), and what the
        /// render met (kept in `darkroom.jobs.warnings`).
        case renditions(adjustmentID: Int64, files: [String], warnings: [RecordedWarning])
    }

    /// The asset's current adjustment as the job read it.
    public enum ExpectedCurrent: Sendable, Hashable {
        case original
        case adjustment(Int64)

        public init(_ id: Int64?) {
            self = id.map(ExpectedCurrent.adjustment) ?? .original
        }

        var id: Int64? {
            if case .adjustment(let id) = self { return id }
            return nil
        }
    }

    public var change: Change
    /// If another writer changed the asset's current adjustment since the job read it,
    /// `complete` writes nothing and throws `QueueError.assetChanged`, so the job runs again on
    /// what is there now. `nil` skips the check.
    public var expectedCurrent: ExpectedCurrent?

    public init(_ change: Change, expectedCurrent: ExpectedCurrent?) {
        self.change = change
        self.expectedCurrent = expectedCurrent
    }
}
