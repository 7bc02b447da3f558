import ByteStreams
import DarkroomDatabase
import DarkroomImaging
import DarkroomMetadata
import DarkroomMetrics
import DarkroomStorage
import Logging

/// How a job's render reads its input and publishes its outputs: through `storage`, by key,
/// with the input's identity kept alongside so failures name the right object and remedy.
extension RenderJobRunner {
    /// Renders `operations` from `input` to `output` (and `display`). Nothing is visible under
    /// either key unless the whole render succeeded.
    func render(
        _ operations: [ImageOperation], from input: RenderInput, orientation: Orientation, to output: StorageKey,
        display: StorageKey?, asset: Asset, job: ClaimedJob, logger: Logger,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws(JobFailure) -> RenderResult {
        let reads = CountingSource.Tally()
        let source = CountingSource(try open(input), tally: reads)
        defer { metrics.read(reads.bytes, from: input.metricsInput) }
        let upload = try beginPublishing(output)
        var displayUpload: (any ObjectUpload)?
        if let display {
            do {
                displayUpload = try beginPublishing(display)
            } catch {
                upload.abort()
                throw error
            }
        }
        var request = RenderRequest(
            operations: operations, encoding: settings.encoding, huffman: settings.huffman, limits: settings.limits,
            spillDirectory: storage.scratchDirectory,
            rewriteExif: { original, size in
                let exif = try OutputExif.fitted(
                    app1Payload: original, pixelWidth: size.width, pixelHeight: size.height)
                return (exif.payload, exif.dropped)
            },
            threads: settings.threads)
        request.displayLongestSide = settings.displayLongestSide
        request.streamBufferBytes = storage.bufferedBytesPerStream
        request.isCancelled = isCancelled
        request.memoryAdmission = settings.memoryAdmission
        let result: RenderResult
        do {
            // A JPEG's gain map follows its image: read the original again to reach it.
            let reopen: (() throws -> any ByteSource)? =
                settings.hdr == .keep
                ? { [self] () throws -> any ByteSource in CountingSource(try open(input), tally: reads) } : nil
            result = try Renderer.render(
                request, from: source, to: upload, display: displayUpload, gainMapSource: reopen,
                orientation: orientation)
        } catch let error as RenderError {
            throw classify(error, input: input)
        } catch {
            throw .transient(code: .renderFailed, message: "\(input.key): \(error)", cause: error)
        }
        metrics.wrote(result.outputBytes, to: .render)
        metrics.wrote(result.displayBytes ?? 0, to: .display)
        metrics.renderMemory(peak: result.plan.memory.total, budget: result.plan.budget)
        for warning in result.warnings {
            logger.warning(
                "render warning",
                metadata: [
                    "job_id": "\(job.id)", "asset_id": "\(asset.id)", "code": "\(warning.code)", "reason": "\(warning)",
                ])
        }
        return result
    }

    /// The asset's original, by the key its import recorded.
    func originalInput(of asset: Asset) throws(JobFailure) -> RenderInput {
        do {
            return .original(assetID: asset.id, key: try StorageKey(asset.originalPath))
        } catch {
            throw .permanent(code: .pathOutsideStorageRoot, message: "asset \(asset.id): \(error)", cause: error)
        }
    }

    /// The recorded render of a layer an edit goes on top of.
    func renderInput(of layer: Adjustment, asset: Asset) throws(JobFailure) -> RenderInput {
        do {
            return .render(
                adjustmentID: layer.id, assetID: asset.id, formatIdentifier: layer.formatIdentifier,
                key: try StorageKey(layer.renderedPath))
        } catch {
            throw .permanent(code: .pathOutsideStorageRoot, message: "adjustment \(layer.id): \(error)", cause: error)
        }
    }

    /// A missing object under a reachable storage is permanent (someone deleted it); an
    /// unreachable storage is transient (the share is not mounted).
    func open(_ input: RenderInput) throws(JobFailure) -> any ByteSource {
        do {
            return try storage.openForReading(input.key)
        } catch  where error.code == .notFound {
            let message = "\(input.key): \(input) is missing from the storage; \(input.remedyForMissing)"
            throw input.damageIsPermanent
                ? .permanent(code: input.missingCode, message: message, cause: error)
                : .transient(code: input.missingCode, message: message, cause: error)
        } catch {
            throw Self.failure(error, doing: "cannot read \(input)")
        }
    }

    func beginPublishing(_ key: StorageKey) throws(JobFailure) -> any ObjectUpload {
        do {
            return try storage.beginPublishing(key)
        } catch {
            throw Self.failure(error, doing: "cannot prepare the output")
        }
    }

    /// A key that leads outside the storage or through a symlink in it, and credentials the
    /// object store rejects, are permanent; everything else may pass.
    static func failure(_ error: StreamError, doing what: String) -> JobFailure {
        let message = "\(error.object): \(what): \(error.message)"
        switch error.code {
        case .outsideStorage, .symlinkInPath, .rejected:
            return .permanent(code: FailureCode(error.code), message: message, cause: error)
        case .notFound, .unavailable, .refused, .io:
            return .transient(code: FailureCode(error.code), message: message, cause: error)
        }
    }

    /// Errors name their object: libjpeg's and libheif's about the input (its key) blame the input by
    /// identity; the rest concern the render itself or its outputs, and say so themselves.
    func classify(_ error: RenderError, input: RenderInput) -> JobFailure {
        if let cause = error.codecError, cause.objectName == input.key.rawValue {
            let failure = RenderInputError(input: input, cause: cause)
            return failure.isPermanent
                ? .permanent(code: failure.code, message: failure.description, cause: failure)
                : .transient(code: failure.code, message: failure.description, cause: failure)
        }
        switch error.code {
        case .memoryBudgetExceeded, .imageTooLarge, .cropOutOfBounds, .invalidRotation:
            return .permanent(code: FailureCode(error), message: "\(input.key): \(error)", cause: error)
        default:
            return error.isPermanent
                ? .permanent(code: FailureCode(error), message: "\(error)", cause: error)
                : .transient(code: FailureCode(error), message: "\(error)", cause: error)
        }
    }
}
