import DarkroomAdjustments
import DarkroomImaging
import DarkroomQueue
import DarkroomStorage
import Logging

/// Reverts and re-renders: the chain that stays is rendered again from the original, layer
/// by layer, with this worker's code, and each layer's data is migrated to its editor's
/// current version. Each replayed layer becomes a new adjustment record (`rerender_of` names
/// the one it renders again), so the history stays append-only and every record's render is
/// the render of its own chain.
extension RenderJobRunner {
    /// The layers the asset shows now, bottom first; an error if the chain is broken.
    func currentChain(of asset: Asset, history: [Adjustment]) throws(JobFailure) -> [Adjustment] {
        let chain = history.chain(endingAt: asset.currentAdjustmentID)
        if let current = asset.currentAdjustmentID, chain.isEmpty {
            throw .permanent(code: "base_adjustment_missing", message: "asset \(asset.id): its current adjustment \(current) is not in its history")
        }
        if let bottom = chain.first, let missing = bottom.baseAdjustmentID {
            throw .permanent(code: "base_adjustment_missing",
                             message: "asset \(asset.id): adjustment \(missing), the base of adjustment \(bottom.id), is not in its history")
        }
        return chain
    }

    /// Why a re-render has nothing to do, or `nil` when the chain has a layer in `identifier`
    /// (below `below`, if given). Pure: decided from the chain alone.
    static func nothingToRerender(_ chain: [Adjustment], identifier: String?, below: String?, assetID: Int64) -> String? {
        if chain.isEmpty { return "asset \(assetID) shows its original; there is nothing to re-render" }
        guard let identifier else { return nil }
        let limit = below.flatMap(SemanticVersion.init)
        let affected = chain.contains { layer in
            layer.formatIdentifier == identifier
                && (limit.map { limit in SemanticVersion(layer.formatVersion).map { $0 < limit } ?? false } ?? true)
        }
        guard !affected else { return nil }
        return "the current chain of asset \(assetID) (\(describe(chain))) no longer has a layer in \(identifier)"
            + (below.map { " below \($0)" } ?? "") + "; nothing to re-render"
    }

    /// Why this worker should give the job back for another one, or `nil` if it can run it:
    /// a layer (or the edit) needs a newer editor than this worker has, or one it does not
    /// know. Versions older than an editor reads are not a reason: no newer worker reads them
    /// either, so the job runs and fails with that error.
    func reasonToWait(_ job: ClaimedJob, asset: Asset, history: [Adjustment]) -> String? {
        let needed: [(identifier: String, version: String)]
        switch job.work {
        case let .edit(identifier, version, _):
            needed = [(identifier, version)]
        case .revert:
            return nil
        case .revertLast:
            needed = history.chain(endingAt: asset.currentAdjustmentID).dropLast().map { ($0.formatIdentifier, $0.formatVersion) }
        case .rerender:
            needed = history.chain(endingAt: asset.currentAdjustmentID).map { ($0.formatIdentifier, $0.formatVersion) }
        }
        for (identifier, text) in needed {
            guard let editor = registry.editors[identifier] else {
                // An edit's unknown format never reaches a worker (the claim filters it); a
                // layer's may, and another worker may know it.
                if case .edit = job.work { return nil }
                return "waiting for a worker with an editor for \(identifier) (a layer of asset \(asset.id) uses it)"
            }
            if let version = SemanticVersion(text), !editor.canRead(version), version > editor.currentVersion {
                return "waiting for a worker that can read \(identifier) \(text) (this one writes \(editor.currentVersion))"
            }
        }
        return nil
    }

    /// Renders `chain` again from the original: layer 1 from the original, each next one on
    /// the one before. Returns the new records, bottom first, for `JobQueue.complete`.
    func replay(_ chain: [Adjustment], job: ClaimedJob, asset: Asset, logger: Logger,
                isCancelled: @escaping @Sendable () -> Bool) throws(JobFailure) -> [NewAdjustment] {
        var layers: [NewAdjustment] = []
        var input = try originalInput(of: asset)
        var orientation = Orientation(exifValue: asset.orientation)
        for (index, old) in chain.enumerated() {
            let isTop = index == chain.count - 1
            let upgraded: EncodedAdjustment
            do {
                upgraded = try registry.upgrade(identifier: old.formatIdentifier, version: old.formatVersion, data: old.data)
            } catch let error as AdjustmentError {
                throw .permanent(code: error.code.rawValue, message: "job \(job.id): adjustment \(old.id): \(error.message)")
            } catch {
                throw .permanent(code: "adjustment_data", message: "job \(job.id): adjustment \(old.id): \(error)")
            }
            let operations = try decode(identifier: upgraded.formatIdentifier, version: upgraded.formatVersion,
                                        data: upgraded.data, job: job)
            let output = isTop ? StorageLayout.render(assetID: asset.id, jobID: job.id)
                               : StorageLayout.layer(assetID: asset.id, jobID: job.id, layer: index + 1)
            let result = try render(operations, from: input, orientation: orientation, to: output,
                                    display: isTop ? StorageLayout.display(assetID: asset.id, jobID: job.id) : nil,
                                    asset: asset, job: job, logger: logger, isCancelled: isCancelled)
            layers.append(NewAdjustment(
                formatIdentifier: upgraded.formatIdentifier, formatVersion: upgraded.formatVersion, data: upgraded.data,
                baseAdjustmentID: nil, renderedPath: output.rawValue, renderedWidth: result.outputSize.width,
                renderedHeight: result.outputSize.height, renderedBytes: Int64(result.outputBytes), rerenderOf: old.id))
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
