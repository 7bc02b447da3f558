import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomMetadata
import DarkroomMetrics
import DarkroomStorage
import Foundation
import Logging

/// Turns one claimed job into a rendered JPEG in the storage and the adjustment record that
/// describes it. No database access: the caller records the outcome. Every object is named by
/// `StorageLayout` and read or published through `storage` (see `RenderJobRunner+Storage`).
public struct RenderJobRunner: Sendable {
    public let storage: any ObjectStorage
    public let registry: EditorRegistry
    public let settings: RenderSettings
    /// Where each render's bytes and memory are recorded.
    public let metrics: WorkerMetrics
    /// The filters' LUTs, shared by the worker's slots.
    public let filters: FilterTables
    /// Where renders run: a sandboxed child each (with the standard editors), or nil for this
    /// process (with `registry`).
    public let sandbox: DecoderSandbox?

    public init(
        storage: any ObjectStorage, registry: EditorRegistry = .standard, settings: RenderSettings,
        metrics: WorkerMetrics = WorkerMetrics(), filters: FilterTables = FilterTables(), sandbox: DecoderSandbox? = nil
    ) {
        self.storage = storage
        self.registry = registry
        self.settings = settings
        self.metrics = metrics
        self.filters = filters
        self.sandbox = sandbox
    }

    /// Runs `job` against `asset`, which shows the layers `chain` (bottom first, as
    /// `AssetStore.currentChain` reads them), and says what to record. An edit is rendered
    /// from what the can-handle rule picks; reverts and re-renders replay the chain they keep
    /// from the original (see `RenderJobRunner+Replay`). For a re-render, `rerenderNeeded` is
    /// the database's answer to whether the chain still has a layer it concerns.
    /// `isCancelled` is checked between strips, so a cancelled job or a lost lease stops
    /// the render early instead of finishing work nobody will record.
    public func run(
        _ job: ClaimedJob, asset: Asset, chain: [Adjustment] = [], rerenderNeeded: Bool = true, logger: Logger,
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) throws(JobFailure) -> JobResult {
        let expected = JobResult.ExpectedCurrent(asset.currentAdjustmentID)
        switch job.work {
        case .edit(let identifier, let version, let data):
            let layer = try edit(
                job, identifier: identifier, version: version, data: data, asset: asset, chain: chain,
                logger: logger, isCancelled: isCancelled)
            return JobResult(.layers([layer]), expectedCurrent: expected)
        case .revert:
            guard !chain.isEmpty else {
                return JobResult(
                    .none(outcome: "asset \(asset.id) already showed its original"), expectedCurrent: expected)
            }
            return JobResult(
                .original(outcome: "reverted to the original, removing \(Self.describe(chain))"),
                expectedCurrent: expected)
        case .revertLast:
            guard let top = chain.last else {
                return JobResult(
                    .none(outcome: "asset \(asset.id) shows its original; there is no layer to remove"),
                    expectedCurrent: expected)
            }
            let rest = Array(chain.dropLast())
            guard !rest.isEmpty else {
                return JobResult(
                    .original(
                        outcome:
                            "removed the only layer, adjustment \(top.id) (\(top.formatIdentifier)); the asset shows its original"
                    ),
                    expectedCurrent: expected)
            }
            return JobResult(
                .layers(try replay(rest, job: job, asset: asset, logger: logger, isCancelled: isCancelled)),
                expectedCurrent: expected)
        case .rerender(let identifier, let target, let upgrade):
            guard rerenderNeeded else {
                let outcome =
                    upgrade.map { Self.nothingToUpgrade(chain, upgrade: $0, assetID: asset.id) }
                    ?? Self.nothingToRerender(chain, identifier: identifier, below: target, assetID: asset.id)
                return JobResult(
                    .none(outcome: outcome),
                    expectedCurrent: expected)
            }
            return JobResult(
                .layers(try replay(chain, job: job, asset: asset, logger: logger, isCancelled: isCancelled)),
                expectedCurrent: expected)
        case .renditions:
            return try writeRenditions(job, asset: asset, chain: chain, logger: logger, isCancelled: isCancelled)
        }
    }

    /// Renders one edit: from the original, or on top of a rendered layer (the can-handle rule).
    func edit(
        _ job: ClaimedJob, identifier: String, version: String, data: [UInt8], asset: Asset, chain: [Adjustment],
        logger: Logger, isCancelled: @escaping @Sendable () -> Bool
    ) throws(JobFailure) -> NewAdjustment {
        let adjustment = EncodedAdjustment(formatIdentifier: identifier, formatVersion: version, data: data)
        do {
            // Data no editor here reads is refused before anything is read or written.
            _ = try registry.editor(for: identifier, version: version)
        } catch let error as AdjustmentError {
            throw Self.refused(error, job: job, adjustmentID: nil)
        } catch {
            throw .permanent(code: .adjustmentData, message: "job \(job.id): \(error)", cause: error)
        }
        let base = try startingPoint(forEditIn: identifier, asset: asset, chain: chain)
        return try renderLayer(
            LayerRenderer.Layer(adjustment, start: base.start), from: base.input,
            to: StorageLayout.render(assetID: asset.id, jobID: job.id), withRenditions: true,
            baseAdjustmentID: base.adjustmentID, rerenderOf: nil, asset: asset, job: job, logger: logger,
            isCancelled: isCancelled)
    }

    /// What an edit in `identifier` starts from, by the can-handle rule: the original, or the
    /// recorded render of a layer in `chain` (then named as the new record's base).
    func startingPoint(forEditIn identifier: String, asset: Asset, chain: [Adjustment]) throws(JobFailure)
        -> (input: RenderInput, start: Picture.Start, adjustmentID: Int64?)
    {
        let base = registry.baseImage(
            forEditIn: identifier,
            over: chain.last.map {
                CurrentAdjustment(
                    id: $0.id, formatIdentifier: $0.formatIdentifier, formatVersion: $0.formatVersion,
                    baseAdjustmentID: $0.baseAdjustmentID)
            })
        switch base {
        case .original:
            return (try originalInput(of: asset), originalStart(of: asset), nil)
        case .rendered(let id):
            guard let layer = chain.first(where: { $0.id == id }) else {
                throw .permanent(
                    code: .baseAdjustmentMissing,
                    message: "asset \(asset.id): adjustment \(id), the base of this edit, is not in its chain")
            }
            return (try renderInput(of: layer, asset: asset), .render, id)
        }
    }

    /// An original starts in the orientation its import recorded.
    func originalStart(of asset: Asset) -> Picture.Start {
        .original(recorded: Orientation(exifValue: asset.orientation))
    }

    /// The renderer of this job's layers: its filters' LUTs come from the storage.
    func layers(for job: ClaimedJob) -> LayerRenderer {
        LayerRenderer(registry: registry, settings: settings, filters: .storage(filters, storage, jobID: job.id))
    }
}
