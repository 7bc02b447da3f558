import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomMetadata
import DarkroomMetrics
import DarkroomStorage
import Logging

/// How a job's render reads its input and publishes its outputs: through `storage`, by key,
/// with the input's identity kept alongside so failures name the right object and remedy.
extension RenderJobRunner {
    /// Renders `layer` from `input` to `output` (and, `withRenditions`, to each of
    /// `settings.renditions` beside it) and returns its record. Nothing is visible under any
    /// key unless the whole render succeeded.
    func renderLayer(
        _ layer: LayerRenderer.Layer, from input: RenderInput, to output: StorageKey, withRenditions: Bool,
        baseAdjustmentID: Int64?, rerenderOf: Int64?, asset: Asset, job: ClaimedJob, logger: Logger,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws(JobFailure) -> NewAdjustment {
        let reads = CountingSource.Tally()
        defer { metrics.read(reads.bytes, from: input.metricsInput) }
        let streams = try streams(
            reading: input, counting: reads, into: output, withRenditions: withRenditions, asset: asset, job: job,
            isCancelled: isCancelled)
        let rendered: LayerRenderer.Rendered
        do {
            rendered = try layers(for: job).render(layer, streams: streams)
        } catch {
            throw failure(error, input: input, job: job, adjustmentID: rerenderOf)
        }
        let result = rendered.result
        metrics.wrote(result.outputBytes, to: .render)
        metrics.wrote(result.renditions.reduce(0) { $0 + $1.bytes }, to: .renditions)
        metrics.renderMemory(peak: result.plan.memory.total, budget: result.plan.budget)
        let warnings =
            rendered.plan.warnings.map {
                RecordedWarning(code: $0.code, message: $0.message, object: input.key.rawValue)
            }
            + result.warnings.map(RecordedWarning.init)
        log(warnings, job: job, asset: asset, logger: logger)
        let record = rendered.plan.record
        return NewAdjustment(
            formatIdentifier: record.formatIdentifier, formatVersion: record.formatVersion, data: record.data,
            baseAdjustmentID: baseAdjustmentID, renderedPath: output.rawValue, renderedWidth: result.outputSize.width,
            renderedHeight: result.outputSize.height, renderedBytes: Int64(result.outputBytes), rerenderOf: rerenderOf,
            warnings: warnings, renderedWith: rendered.provenance.json)
    }

    /// What a render reads and writes: `input`, counted into `reads` (and read again for a
    /// JPEG's gain map, which follows its image), an upload to `output` when there is one, and
    /// one for each of `settings.renditions` when `withRenditions`. The input is opened first; if
    /// an upload cannot begin, every one begun is aborted.
    func streams(
        reading input: RenderInput, counting reads: CountingSource.Tally, into output: StorageKey?,
        withRenditions: Bool, asset: Asset, job: ClaimedJob, isCancelled: @escaping @Sendable () -> Bool
    ) throws(JobFailure) -> LayerRenderer.Streams {
        let source = CountingSource(try open(input), tally: reads)
        let upload = try output.map { (key) throws(JobFailure) in try beginPublishing(key) }
        var renditions: [(upload: any ObjectUpload, path: String)] = []
        do throws(JobFailure) {
            for target in withRenditions ? settings.renditions : [] {
                let key = try renditionKey(target.rendition, asset: asset, job: job)
                renditions.append((try beginPublishing(key), key.rawValue))
            }
        } catch {
            upload?.abort()
            for rendition in renditions { rendition.upload.abort() }
            throw error
        }
        var streams = LayerRenderer.Streams(
            input: source,
            reopen: { [self] () throws -> any ByteSource in CountingSource(try open(input), tally: reads) },
            output: upload, renditions: renditions, scratchDirectory: storage.scratchDirectory)
        streams.bufferedBytesPerStream = storage.bufferedBytesPerStream
        streams.isCancelled = isCancelled
        return streams
    }

    /// Each warning a render met, in the worker's log with its job and asset.
    func log(_ warnings: [RecordedWarning], job: ClaimedJob, asset: Asset, logger: Logger) {
        for warning in warnings {
            logger.warning(
                "render warning",
                metadata: [
                    "job_id": "\(job.id)", "asset_id": "\(asset.id)", "code": "\(warning.code)",
                    "reason": "\(warning.message)",
                ])
        }
    }

    /// What a failed layer render records. Adjustment data that cannot be planned is refused
    /// for good; the codecs' errors name the object at fault.
    func failure(_ error: any Error, input: RenderInput, job: ClaimedJob, adjustmentID: Int64?) -> JobFailure {
        switch error {
        case let failure as JobFailure: failure
        case let error as AdjustmentError: Self.refused(error, job: job, adjustmentID: adjustmentID)
        case let error as RenderError: classify(error, input: input)
        default: .transient(code: .renderFailed, message: "\(input.key): \(error)", cause: error)
        }
    }

    static func refused(_ error: AdjustmentError, job: ClaimedJob, adjustmentID: Int64?) -> JobFailure {
        let subject = "job \(job.id): " + (adjustmentID.map { "adjustment \($0): " } ?? "")
        return .permanent(code: FailureCode(error.code), message: subject + error.message, cause: error)
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

    /// Where a job's rendition goes (`StorageLayout.rendition`); a name SQL would have refused
    /// names no file.
    func renditionKey(_ rendition: Rendition, asset: Asset, job: ClaimedJob) throws(JobFailure) -> StorageKey {
        guard
            let key = StorageLayout.rendition(
                assetID: asset.id, jobID: job.id, name: rendition.name, fileExtension: rendition.format.fileExtension)
        else {
            throw .permanent(
                code: .internalError,
                message: "job \(job.id): a rendition named \(JSONText.quoted(rendition.name)) cannot name a file; "
                    + "darkroom rendition list shows the definitions")
        }
        return key
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
        // Whether a retry could help is the renderer's to say (`RenderError.isPermanent`); an
        // error about the picture's size or geometry names the input it concerns.
        let concernsInput = [.memoryBudgetExceeded, .imageTooLarge, .cropOutOfBounds, .invalidRotation].contains(
            error.code)
        let message = concernsInput ? "\(input.key): \(error)" : "\(error)"
        return error.isPermanent
            ? .permanent(code: FailureCode(error), message: message, cause: error)
            : .transient(code: FailureCode(error), message: message, cause: error)
    }
}
