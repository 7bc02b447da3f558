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

    public init(
        storage: any ObjectStorage, registry: EditorRegistry = .standard, settings: RenderSettings,
        metrics: WorkerMetrics = WorkerMetrics(), filters: FilterTables = FilterTables()
    ) {
        self.storage = storage
        self.registry = registry
        self.settings = settings
        self.metrics = metrics
        self.filters = filters
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
        }
    }

    /// Renders one edit: from the original, or on top of a rendered layer (the can-handle rule).
    func edit(
        _ job: ClaimedJob, identifier: String, version: String, data: [UInt8], asset: Asset, chain: [Adjustment],
        logger: Logger, isCancelled: @escaping @Sendable () -> Bool
    ) throws(JobFailure) -> NewAdjustment {
        if identifier == ApplePhotoFormat.identifier {
            return try appleEdit(
                job, version: version, data: data, asset: asset, chain: chain, logger: logger, isCancelled: isCancelled)
        }
        let operations = try decode(identifier: identifier, version: version, data: data, job: job)
        let current = chain.last
        let base = registry.baseImage(
            forEditIn: identifier,
            over: current.map {
                CurrentAdjustment(
                    id: $0.id, formatIdentifier: $0.formatIdentifier, formatVersion: $0.formatVersion,
                    baseAdjustmentID: $0.baseAdjustmentID)
            })
        let input: RenderInput
        let orientation: Orientation
        let baseAdjustmentID: Int64?
        switch base {
        case .original:
            input = try originalInput(of: asset)
            orientation = Orientation(exifValue: asset.orientation)
            baseAdjustmentID = nil
        case .rendered(let id):
            guard let layer = chain.first(where: { $0.id == id }) else {
                throw .permanent(
                    code: .baseAdjustmentMissing,
                    message: "asset \(asset.id): adjustment \(id), the base of this edit, is not in its chain")
            }
            input = try renderInput(of: layer, asset: asset)
            orientation = .up  // renders are upright already
            baseAdjustmentID = id
        }
        let output = StorageLayout.render(assetID: asset.id, jobID: job.id)
        let result = try render(
            operations, from: input, orientation: orientation, to: output,
            display: StorageLayout.display(assetID: asset.id, jobID: job.id), asset: asset, job: job,
            logger: logger, isCancelled: isCancelled)
        return NewAdjustment(
            formatIdentifier: identifier, formatVersion: version, data: data,
            baseAdjustmentID: baseAdjustmentID, renderedPath: output.rawValue, renderedWidth: result.outputSize.width,
            renderedHeight: result.outputSize.height, renderedBytes: Int64(result.outputBytes),
            warnings: result.warnings.map(RecordedWarning.init),
            renderedWith: RenderProvenance(operations: operations, settings: settings, display: true, hdr: result.hdr)
                .json)
    }

    func decode(identifier: String, version: String, data: [UInt8], job: ClaimedJob) throws(JobFailure)
        -> [ImageOperation]
    {
        let operations: [ImageOperation]
        do {
            operations = try registry.operations(identifier: identifier, version: version, data: data)
        } catch let error as AdjustmentError {
            throw .permanent(code: FailureCode(error.code), message: "job \(job.id): \(error.message)", cause: error)
        } catch {
            throw .permanent(code: .adjustmentData, message: "job \(job.id): \(error)", cause: error)
        }
        return try filters.load(operations, from: storage, job: job)
    }
}
