import DarkroomAdjustments
import DarkroomImaging
import DarkroomMetadata
import DarkroomDatabase
import Foundation
import JPEGTurbo
import Logging

/// Turns one claimed job into a rendered JPEG under the storage root and the adjustment
/// record that describes it. No database access: the caller records the outcome.
public struct RenderJobRunner: Sendable {
    public let storage: StorageRoot
    public let registry: EditorRegistry
    public let settings: RenderSettings

    public init(storage: StorageRoot, registry: EditorRegistry = .standard, settings: RenderSettings) {
        self.storage = storage
        self.registry = registry
        self.settings = settings
    }

    /// Where a job's render goes: one file per job, so retries of a job replace their own
    /// output and never another job's.
    public static func renderedPath(assetID: Int64, jobID: Int64) -> String {
        "renders/\(assetID)/\(jobID).jpg"
    }

    /// The display-size copy (PhotoKit's displaySizeImage) beside each render.
    public static func displayPath(assetID: Int64, jobID: Int64) -> String {
        "renders/\(assetID)/\(jobID).display.jpg"
    }

    /// A lower layer of a replayed chain (`layer` counts from 1 at the bottom); only the top
    /// layer, the job's own render, gets a display copy.
    public static func layerPath(assetID: Int64, jobID: Int64, layer: Int) -> String {
        "renders/\(assetID)/\(jobID).layer\(layer).jpg"
    }

    /// Runs `job` against `asset`, which shows the layers `chain` (bottom first, as
    /// `AssetStore.currentChain` reads them), and says what to record. An edit is rendered
    /// from what the can-handle rule picks; reverts and re-renders replay the chain they keep
    /// from the original (see `RenderJobRunner+Replay`). For a re-render, `rerenderNeeded` is
    /// the database's answer to whether the chain still has a layer it concerns.
    /// `isCancelled` is checked between strips, so a cancelled job or a lost lease stops
    /// the render early instead of finishing work nobody will record.
    public func run(_ job: ClaimedJob, asset: Asset, chain: [Adjustment] = [], rerenderNeeded: Bool = true, logger: Logger,
                    isCancelled: @escaping @Sendable () -> Bool = { false }) throws(JobFailure) -> JobResult {
        let expected = JobResult.ExpectedCurrent(asset.currentAdjustmentID)
        switch job.work {
        case let .edit(identifier, version, data):
            let layer = try edit(job, identifier: identifier, version: version, data: data, asset: asset, chain: chain,
                                 logger: logger, isCancelled: isCancelled)
            return JobResult(.layers([layer]), expectedCurrent: expected)
        case .revert:
            guard !chain.isEmpty else {
                return JobResult(.none(outcome: "asset \(asset.id) already showed its original"), expectedCurrent: expected)
            }
            return JobResult(.original(outcome: "reverted to the original, removing \(Self.describe(chain))"), expectedCurrent: expected)
        case .revertLast:
            guard let top = chain.last else {
                return JobResult(.none(outcome: "asset \(asset.id) shows its original; there is no layer to remove"), expectedCurrent: expected)
            }
            let rest = Array(chain.dropLast())
            guard !rest.isEmpty else {
                return JobResult(.original(outcome: "removed the only layer, adjustment \(top.id) (\(top.formatIdentifier)); the asset shows its original"),
                                 expectedCurrent: expected)
            }
            return JobResult(.layers(try replay(rest, job: job, asset: asset, logger: logger, isCancelled: isCancelled)),
                             expectedCurrent: expected)
        case let .rerender(identifier, target):
            guard rerenderNeeded else {
                return JobResult(.none(outcome: Self.nothingToRerender(chain, identifier: identifier, below: target, assetID: asset.id)),
                                 expectedCurrent: expected)
            }
            return JobResult(.layers(try replay(chain, job: job, asset: asset, logger: logger, isCancelled: isCancelled)),
                             expectedCurrent: expected)
        }
    }

    /// Renders one edit: from the original, or on top of a rendered layer (the can-handle rule).
    func edit(_ job: ClaimedJob, identifier: String, version: String, data: [UInt8], asset: Asset, chain: [Adjustment],
              logger: Logger, isCancelled: @escaping @Sendable () -> Bool) throws(JobFailure) -> NewAdjustment {
        let operations = try decode(identifier: identifier, version: version, data: data, job: job)
        let current = chain.last
        let base = registry.baseImage(forEditIn: identifier, over: current.map {
            CurrentAdjustment(id: $0.id, formatIdentifier: $0.formatIdentifier, formatVersion: $0.formatVersion,
                              baseAdjustmentID: $0.baseAdjustmentID)
        })
        let input: String
        let orientation: Orientation
        let baseAdjustmentID: Int64?
        switch base {
        case .original:
            input = try originalPath(of: asset)
            orientation = Orientation(exifValue: asset.orientation)
            baseAdjustmentID = nil
        case .rendered(let id):
            guard let layer = chain.first(where: { $0.id == id }) else {
                throw .permanent(code: .baseAdjustmentMissing, message: "asset \(asset.id): adjustment \(id), the base of this edit, is not in its chain")
            }
            input = try renderedPath(of: layer, asset: asset)
            orientation = .up  // renders are upright already
            baseAdjustmentID = id
        }
        let relative = Self.renderedPath(assetID: asset.id, jobID: job.id)
        let result = try render(operations, from: input, orientation: orientation, to: relative,
                                display: Self.displayPath(assetID: asset.id, jobID: job.id), asset: asset, job: job,
                                logger: logger, isCancelled: isCancelled)
        return NewAdjustment(
            formatIdentifier: identifier, formatVersion: version, data: data,
            baseAdjustmentID: baseAdjustmentID, renderedPath: relative, renderedWidth: result.outputSize.width,
            renderedHeight: result.outputSize.height, renderedBytes: Int64(result.outputBytes))
    }

    func decode(identifier: String, version: String, data: [UInt8], job: ClaimedJob) throws(JobFailure) -> [ImageOperation] {
        do {
            return try registry.operations(identifier: identifier, version: version, data: data)
        } catch let error as AdjustmentError {
            throw .permanent(code: FailureCode(error.code), message: "job \(job.id): \(error.message)", cause: error)
        } catch {
            throw .permanent(code: .adjustmentData, message: "job \(job.id): \(error)", cause: error)
        }
    }

    /// Renders `operations` from `input` to the storage-relative `output` (and `display`).
    func render(_ operations: [ImageOperation], from input: String, orientation: Orientation, to output: String,
                display: String?, asset: Asset, job: ClaimedJob, logger: Logger,
                isCancelled: @escaping @Sendable () -> Bool) throws(JobFailure) -> RenderResult {
        let absolute: String
        do {
            absolute = try storage.resolve(output)
            try FileManager.default.createDirectory(atPath: (absolute as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        } catch {
            throw .transient(code: .storageUnavailable, message: "cannot prepare \(output): \(error)", cause: error)
        }
        var request = RenderRequest(
            inputPath: input, outputPath: absolute, operations: operations, encoding: settings.encoding,
            huffman: settings.huffman, limits: settings.limits, spillDirectory: storage.spillDirectory,
            rewriteExif: { original, size in
                try OutputExif.rewrite(app1Payload: original, pixelWidth: size.width, pixelHeight: size.height)
            },
            threads: settings.threads)
        request.displayOutputPath = display.flatMap { try? storage.resolve($0) }
        request.displayLongestSide = settings.displayLongestSide
        request.isCancelled = isCancelled
        let result: RenderResult
        do {
            result = try Renderer.render(request, orientation: orientation)
        } catch let error as RenderError {
            throw classify(error, asset: asset)
        } catch {
            throw .transient(code: .renderFailed, message: "\(asset.originalPath): \(error)", cause: error)
        }
        for warning in result.warnings {
            logger.warning("render warning", metadata: ["job_id": "\(job.id)", "asset_id": "\(asset.id)", "reason": "\(warning)"])
        }
        return result
    }

    /// The original's absolute path. A missing file under a present root is permanent
    /// (someone deleted it); a missing root is transient (the share is not mounted).
    func originalPath(of asset: Asset) throws(JobFailure) -> String {
        let path: String
        do {
            path = try storage.resolve(asset.originalPath)
        } catch {
            throw .permanent(code: .pathOutsideStorageRoot, message: "asset \(asset.id): \(error)", cause: error)
        }
        guard storage.isAvailable else {
            throw .transient(code: .storageUnavailable,
                             message: "the storage root \(storage.path) is not available; is the share mounted?")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw .permanent(code: .originalMissing,
                             message: "\(asset.originalPath): the original of asset \(asset.id) is missing from the storage root; restore it and retry the job")
        }
        return path
    }

    /// The rendered file of a layer an edit goes on top of.
    func renderedPath(of layer: Adjustment, asset: Asset) throws(JobFailure) -> String {
        let path: String
        do {
            path = try storage.resolve(layer.renderedPath)
        } catch {
            throw .permanent(code: .pathOutsideStorageRoot, message: "adjustment \(layer.id): \(error)", cause: error)
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw .permanent(code: .baseRenderMissing,
                             message: "\(layer.renderedPath): the render of adjustment \(layer.id), which this edit goes on top of, is missing; re-render asset \(asset.id)")
        }
        return path
    }

    func classify(_ error: RenderError, asset: Asset) -> JobFailure {
        var message = "\(asset.originalPath): \(error)"
        if case .jpeg(var jpeg) = error {
            // Report the stored path, which operators know, not this machine's mount point.
            jpeg.path = asset.originalPath
            message = RenderError.jpeg(jpeg).description
        }
        return JobFailure(code: FailureCode(error), message: message, isPermanent: error.isPermanent, cause: error)
    }
}
