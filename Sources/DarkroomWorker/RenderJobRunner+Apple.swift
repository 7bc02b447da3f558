import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomMetadata
import DarkroomStorage
import Logging

/// `com.apple.photo` edits: Apple's geometry is relative to the picture it was made on, so the
/// input's header is read first, `ApplePhotoPlan` decides (refusing by name what darkroom
/// cannot reproduce), and `ApplePhotoGeometry.operations()` is the one place its geometry
/// becomes render steps.
extension RenderJobRunner {
    /// The warning a geometry-only render records, and the one a re-render records when it
    /// keeps Apple's own render of a layer it cannot reproduce.
    static let geometryOnlyWarning = "apple_geometry_only"
    static let appleRenderKeptWarning = "apple_render_kept"

    /// An Apple edit rendered from `input` (the original, or the layer it goes on top of).
    struct AppleRender {
        var operations: [ImageOperation]
        var orientation: Orientation
        var warnings: [RecordedWarning]
    }

    /// Plans `data` on `input`: reads its header for the picture's size and, for an original
    /// that carries its own orientation (a HEIF), the EXIF orientation Photos saw.
    func appleRender(
        data: [UInt8], input: RenderInput, isOriginal: Bool, geometryOnly: Bool, job: ClaimedJob
    ) throws(JobFailure) -> AppleRender {
        let header = try header(of: input)
        let pictureOrientation =
            isOriginal && header.carriesOwnOrientation
            ? Orientation(exifValue: MetadataReader.read(app1Payload: header.exifPayload).metadata.orientation) : .up
        do {
            let plan = try ApplePhotoPlan(
                ApplePhotoFormat.decode(data), pictureSize: header.storedSize, pictureOrientation: pictureOrientation,
                geometryOnly: geometryOnly)
            let warnings = plan.geometryOnlyWarning.map {
                [RecordedWarning(code: Self.geometryOnlyWarning, message: $0, object: input.key.rawValue)]
            }
            return AppleRender(
                operations: plan.geometry.operations(), orientation: plan.geometry.orientation,
                warnings: warnings ?? [])
        } catch let error as AdjustmentError {
            throw .permanent(code: FailureCode(error.code), message: "job \(job.id): \(error.message)", cause: error)
        } catch {
            throw .permanent(code: .adjustmentData, message: "job \(job.id): \(error)", cause: error)
        }
    }

    /// Renders an Apple edit: from what the can-handle rule picks (the original, or the render
    /// of another editor's layer, whose size must then be the master's).
    func appleEdit(
        _ job: ClaimedJob, version: String, data: [UInt8], asset: Asset, chain: [Adjustment], logger: Logger,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws(JobFailure) -> NewAdjustment {
        let identifier = ApplePhotoFormat.identifier
        do {
            _ = try registry.editor(for: identifier, version: version)
        } catch let error as AdjustmentError {
            throw .permanent(code: FailureCode(error.code), message: "job \(job.id): \(error.message)", cause: error)
        } catch {
            throw .permanent(code: .adjustmentData, message: "job \(job.id): \(error)", cause: error)
        }
        let base = registry.baseImage(
            forEditIn: identifier,
            over: chain.last.map {
                CurrentAdjustment(
                    id: $0.id, formatIdentifier: $0.formatIdentifier, formatVersion: $0.formatVersion,
                    baseAdjustmentID: $0.baseAdjustmentID)
            })
        let input: RenderInput
        let baseAdjustmentID: Int64?
        switch base {
        case .original:
            input = try originalInput(of: asset)
            baseAdjustmentID = nil
        case .rendered(let id):
            guard let layer = chain.first(where: { $0.id == id }) else {
                throw .permanent(
                    code: .baseAdjustmentMissing,
                    message: "asset \(asset.id): adjustment \(id), the base of this edit, is not in its chain")
            }
            input = try renderInput(of: layer, asset: asset)
            baseAdjustmentID = id
        }
        let apple = try appleRender(
            data: data, input: input, isOriginal: baseAdjustmentID == nil, geometryOnly: settings.appleGeometryOnly,
            job: job)
        let output = StorageLayout.render(assetID: asset.id, jobID: job.id)
        let result = try render(
            apple.operations, from: input, orientation: apple.orientation, to: output,
            display: StorageLayout.display(assetID: asset.id, jobID: job.id), asset: asset, job: job,
            logger: logger, isCancelled: isCancelled)
        for warning in apple.warnings {
            logger.warning(
                "apple adjustments left out",
                metadata: ["job_id": "\(job.id)", "asset_id": "\(asset.id)", "reason": "\(warning.message)"])
        }
        return NewAdjustment(
            formatIdentifier: identifier, formatVersion: version, data: data, baseAdjustmentID: baseAdjustmentID,
            renderedPath: output.rawValue, renderedWidth: result.outputSize.width,
            renderedHeight: result.outputSize.height, renderedBytes: Int64(result.outputBytes),
            warnings: apple.warnings + result.warnings.map(RecordedWarning.init))
    }

    /// Whether a re-render keeps `layer`'s stored render instead of rendering it again: an
    /// Apple layer whose render is Apple's own (imported with it: PhotoKit's output is the truth
    /// darkroom only approximates), or whose adjustments darkroom cannot reproduce (its render is
    /// a geometry-only one it must not lose). Other failures still fail the job.
    func keepsStoredRender(of layer: Adjustment, input: RenderInput, isOriginal: Bool, job: ClaimedJob)
        throws(JobFailure) -> Bool
    {
        guard layer.formatIdentifier == ApplePhotoFormat.identifier else { return false }
        if let key = try? StorageKey(layer.renderedPath), StorageLayout.renderOutput(key) == nil { return true }
        do {
            _ = try appleRender(data: layer.data, input: input, isOriginal: isOriginal, geometryOnly: false, job: job)
            return false
        } catch {
            let kept: [FailureCode] = [.appleAdjustmentUnsupported, .operationsNotRepresentable]
            guard kept.contains(error.code) else { throw error }
            return true
        }
    }

    func header(of input: RenderInput) throws(JobFailure) -> SourceHeader {
        let source = try open(input)
        do {
            return try SourceHeader.read(from: source)
        } catch let error as CodecError {
            throw classify(.codec(error), input: input)
        } catch let error as StreamError {
            throw Self.failure(error, doing: "cannot read the header of \(input)")
        } catch {
            throw .transient(code: .renderFailed, message: "\(input.key): \(error)", cause: error)
        }
    }
}
