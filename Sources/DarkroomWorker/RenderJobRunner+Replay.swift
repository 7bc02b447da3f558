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

    /// The warning a re-render records when it keeps the stored render of a layer.
    static let storedRenderKeptWarning = "apple_render_kept"

    /// Renders `chain` again from the original: layer 1 from the original, each next one on
    /// the one before. Returns the new records, bottom first, for `JobQueue.complete`.
    func replay(
        _ chain: [Adjustment], job: ClaimedJob, asset: Asset, logger: Logger,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws(JobFailure) -> [NewAdjustment] {
        var layers: [NewAdjustment] = []
        var input = try originalInput(of: asset)
        for (index, old) in chain.enumerated() {
            let isTop = index == chain.count - 1
            let layer = LayerRenderer.Layer(
                EncodedAdjustment(
                    formatIdentifier: old.formatIdentifier, formatVersion: old.formatVersion, data: old.data),
                start: index == 0 ? originalStart(of: asset) : .render, isReplay: true)
            // A layer keeps the render it has when darkroom did not make it or cannot make it
            // again (a geometry-only one); the layers above are rendered on it.
            if try keepsStoredRender(of: old, layer: layer, input: input, asset: asset, job: job) {
                layers.append(Self.kept(old))
                input = try renderInput(of: old, asset: asset)
                continue
            }
            let output =
                isTop
                ? StorageLayout.render(assetID: asset.id, jobID: job.id)
                : StorageLayout.layer(assetID: asset.id, jobID: job.id, layer: index + 1)
            layers.append(
                try renderLayer(
                    layer, from: input, to: output,
                    withRenditions: isTop,
                    baseAdjustmentID: nil, rerenderOf: old.id, asset: asset, job: job, logger: logger,
                    isCancelled: isCancelled))
            input = .replayedLayer(jobID: job.id, layer: index + 1, key: output)
        }
        return layers
    }

    /// Whether a re-render keeps `old`'s stored render instead of rendering it again. Only a
    /// layer in a format darkroom reads but does not write (Apple's) can: when its render is
    /// the editor's own (imported with it: PhotoKit's output is the truth darkroom only
    /// approximates), or when its adjustments cannot be reproduced (its render is a
    /// geometry-only one that must not be lost). Other failures still fail the job.
    func keepsStoredRender(
        of old: Adjustment, layer: LayerRenderer.Layer, input: RenderInput, asset: Asset, job: ClaimedJob
    ) throws(JobFailure) -> Bool {
        guard registry.editors[old.formatIdentifier]?.writesItsFormat == false else { return false }
        if let key = try? StorageKey(old.renderedPath), StorageLayout.renderOutput(key) == nil { return true }
        let cannotBeMadeAgain: [AdjustmentError.Code] = [.appleAdjustmentUnsupported, .unrepresentable]
        // The data is planned on the input's header: in the sandbox (as the render would be), or here.
        if sandbox != nil {
            let streams = try streams(
                reading: input, counting: CountingSource.Tally(), into: nil, withRenditions: false, asset: asset,
                job: job, isCancelled: { false })
            do {
                _ = try render(layer, streams: streams, input: input, job: job, adjustmentID: old.id, planOnly: true)
                return false
            } catch let failure as JobFailure where cannotBeMadeAgain.map(FailureCode.init).contains(failure.code) {
                return true
            } catch {
                throw failure(error, input: input, job: job, adjustmentID: old.id)
            }
        }
        let header = try header(of: input)
        do {
            _ = try layers(for: job).plan(layer, header: header)
            return false
        } catch let error as AdjustmentError where cannotBeMadeAgain.contains(error.code) {
            return true
        } catch {
            throw failure(error, input: input, job: job, adjustmentID: old.id)
        }
    }

    /// The record of a layer whose stored render a re-render keeps.
    static func kept(_ old: Adjustment) -> NewAdjustment {
        NewAdjustment(
            formatIdentifier: old.formatIdentifier, formatVersion: old.formatVersion, data: old.data,
            baseAdjustmentID: nil, renderedPath: old.renderedPath, renderedWidth: old.renderedWidth,
            renderedHeight: old.renderedHeight, renderedBytes: old.renderedBytes, rerenderOf: old.id,
            warnings: [
                RecordedWarning(
                    code: storedRenderKeptWarning,
                    message:
                        "kept the stored render of adjustment \(old.id): Apple's own, or one darkroom cannot reproduce",
                    object: old.renderedPath)
            ])
    }

    /// "adjustment 3 (io.darkroom.pipeline 1.0.0) under 5 (com.shinobicontrols.filster 1.0)".
    static func describe(_ chain: [Adjustment]) -> String {
        let parts = chain.map { "\($0.id) (\($0.formatIdentifier) \($0.formatVersion))" }
        return (chain.count == 1 ? "adjustment " : "adjustments ") + parts.joined(separator: " under ")
    }
}
