import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomStorage
import Logging

/// Reverts and re-renders: the chain that stays is rendered again from the original, layer
/// by layer, with this worker's code, and each layer's data is migrated to its editor's
/// current version. Each replayed layer becomes a new adjustment record (`rerender_of` names
/// the one it renders again), so the history stays append-only and every record's render is
/// the render of its own chain.
extension RenderJobRunner {
    /// What a re-render the database found nothing for says it did (`rerender_scope` did not name the asset).
    static func nothingToRerender(_ chain: [Adjustment], identifier: String?, below: String?, assetID: Int64) -> String
    {
        guard !chain.isEmpty, let identifier else {
            return "asset \(assetID) shows its original; there is nothing to re-render"
        }
        return "the current chain of asset \(assetID) (\(describe(chain))) no longer has a layer in \(identifier)"
            + (below.map { " below \($0)" } ?? "") + "; nothing to re-render"
    }

    /// What a filter upgrade whose asset no longer shows an older version of the filter says it did.
    static func nothingToUpgrade(_ chain: [Adjustment], upgrade: FilterUpgrade, assetID: Int64) -> String {
        guard !chain.isEmpty else { return "asset \(assetID) shows its original; there is nothing to re-render" }
        return "the current chain of asset \(assetID) (\(describe(chain))) no longer uses \(upgrade.name) below "
            + "\(upgrade.version); nothing to re-render"
    }

    /// Renders `chain` again from the original: layer 1 from the original, each next one on
    /// the one before. Returns the new records, bottom first, for `JobQueue.complete`.
    func replay(
        _ chain: [Adjustment], job: ClaimedJob, asset: Asset, logger: Logger,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws(JobFailure) -> [NewAdjustment] {
        var layers: [NewAdjustment] = []
        var input = try originalInput(of: asset)
        var orientation = Orientation(exifValue: asset.orientation)
        for (index, old) in chain.enumerated() {
            let isTop = index == chain.count - 1
            // An Apple layer keeps the render it has when it is Apple's own or darkroom cannot
            // reproduce it (a geometry-only one); the layers above are rendered on it.
            if try keepsStoredRender(of: old, input: input, isOriginal: index == 0, job: job) {
                let kept = try renderInput(of: old, asset: asset)
                layers.append(
                    NewAdjustment(
                        formatIdentifier: old.formatIdentifier, formatVersion: old.formatVersion, data: old.data,
                        baseAdjustmentID: nil, renderedPath: old.renderedPath, renderedWidth: old.renderedWidth,
                        renderedHeight: old.renderedHeight, renderedBytes: old.renderedBytes, rerenderOf: old.id,
                        warnings: [
                            RecordedWarning(
                                code: Self.appleRenderKeptWarning,
                                message:
                                    "kept the stored render of adjustment \(old.id): Apple's own, or one darkroom cannot reproduce",
                                object: old.renderedPath)
                        ]))
                input = kept
                orientation = .up
                continue
            }
            if old.formatIdentifier == ApplePhotoFormat.identifier {
                let output =
                    isTop
                    ? StorageLayout.render(assetID: asset.id, jobID: job.id)
                    : StorageLayout.layer(assetID: asset.id, jobID: job.id, layer: index + 1)
                let apple = try appleRender(
                    data: old.data, input: input, isOriginal: index == 0, geometryOnly: false, job: job)
                let result = try render(
                    apple.operations, from: input, orientation: apple.orientation, to: output,
                    display: isTop ? StorageLayout.display(assetID: asset.id, jobID: job.id) : nil,
                    asset: asset, job: job, logger: logger, isCancelled: isCancelled)
                layers.append(
                    NewAdjustment(
                        formatIdentifier: old.formatIdentifier, formatVersion: old.formatVersion, data: old.data,
                        baseAdjustmentID: nil, renderedPath: output.rawValue, renderedWidth: result.outputSize.width,
                        renderedHeight: result.outputSize.height, renderedBytes: Int64(result.outputBytes),
                        rerenderOf: old.id, warnings: result.warnings.map(RecordedWarning.init)))
                input = .replayedLayer(jobID: job.id, layer: index + 1, key: output)
                orientation = .up
                continue
            }
            let upgraded: EncodedAdjustment
            do {
                upgraded = try registry.upgrade(
                    identifier: old.formatIdentifier, version: old.formatVersion, data: old.data)
            } catch let error as AdjustmentError {
                throw .permanent(
                    code: FailureCode(error.code), message: "job \(job.id): adjustment \(old.id): \(error.message)",
                    cause: error)
            } catch {
                throw .permanent(
                    code: .adjustmentData, message: "job \(job.id): adjustment \(old.id): \(error)", cause: error)
            }
            let operations = try decode(
                identifier: upgraded.formatIdentifier, version: upgraded.formatVersion,
                data: upgraded.data, job: job)
            let output =
                isTop
                ? StorageLayout.render(assetID: asset.id, jobID: job.id)
                : StorageLayout.layer(assetID: asset.id, jobID: job.id, layer: index + 1)
            let result = try render(
                operations, from: input, orientation: orientation, to: output,
                display: isTop ? StorageLayout.display(assetID: asset.id, jobID: job.id) : nil,
                asset: asset, job: job, logger: logger, isCancelled: isCancelled)
            layers.append(
                NewAdjustment(
                    formatIdentifier: upgraded.formatIdentifier, formatVersion: upgraded.formatVersion,
                    data: upgraded.data,
                    baseAdjustmentID: nil, renderedPath: output.rawValue, renderedWidth: result.outputSize.width,
                    renderedHeight: result.outputSize.height, renderedBytes: Int64(result.outputBytes),
                    rerenderOf: old.id,
                    warnings: result.warnings.map(RecordedWarning.init),
                    renderedWith: RenderProvenance(
                        operations: operations, settings: settings, display: isTop, hdr: result.hdr
                    ).json))
            input = .replayedLayer(jobID: job.id, layer: index + 1, key: output)
            orientation = .up  // renders are upright already
        }
        return layers
    }

    /// "adjustment 3 (io.darkroom.pipeline 1.0.0) under 5 (com.shinobicontrols.filster 1.0)".
    static func describe(_ chain: [Adjustment]) -> String {
        let parts = chain.map { "\($0.id) (\($0.formatIdentifier) \($0.formatVersion))" }
        return (chain.count == 1 ? "adjustment " : "adjustments ") + parts.joined(separator: " under ")
    }
}
