import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomMetadata
import DarkroomMetrics
import DarkroomStorage
import Foundation
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
        let outcome: LayerOutcome
        do {
            outcome = try render(layer, streams: streams, input: input, job: job, adjustmentID: rerenderOf)
        } catch {
            throw failure(error, input: input, job: job, adjustmentID: rerenderOf)
        }
        guard let record = outcome.record else {
            throw .permanent(
                code: .sandboxFailed, message: "\(input.key): the decoding process answered an edit without its record")
        }
        metrics.wrote(outcome.outputBytes, to: .render)
        metrics.wrote(outcome.renditions.reduce(0) { $0 + $1.bytes }, to: .renditions)
        metrics.renderMemory(peak: outcome.plannedMemory, budget: outcome.budget)
        let warnings =
            outcome.editWarnings.map { RecordedWarning(code: $0.code, message: $0.message, object: input.key.rawValue) }
            + outcome.renderWarnings
        log(warnings, job: job, asset: asset, logger: logger)
        let written = outcome.written(settings.renditions, paths: streams.renditions.map(\.path))
        return NewAdjustment(
            formatIdentifier: record.formatIdentifier, formatVersion: record.formatVersion, data: record.data,
            baseAdjustmentID: baseAdjustmentID, renderedPath: output.rawValue, renderedWidth: outcome.outputWidth,
            renderedHeight: outcome.outputHeight, renderedBytes: Int64(outcome.outputBytes), rerenderOf: rerenderOf,
            warnings: warnings, renderedWith: outcome.provenance(settings, written: written).json)
    }

    /// Renders `layer` (nil: the renditions alone, from a stored render) in the decoders' sandbox
    /// when the worker has one, else here, through the same `LayerRenderer` either way.
    /// `planOnly` (sandbox only): plans the layer on the input's header, writes nothing.
    func render(
        _ layer: LayerRenderer.Layer?, streams: LayerRenderer.Streams, input: RenderInput, job: ClaimedJob,
        adjustmentID: Int64?, planOnly: Bool = false
    ) throws -> LayerOutcome {
        let renderer = layers(for: job)
        guard let sandbox else {
            guard let layer else { return LayerOutcome(try renderer.renderRenditions(streams: streams).result) }
            return LayerOutcome(try renderer.render(layer, streams: streams))
        }
        var request = SandboxJob(
            adjustment: layer.map {
                EncodedAdjustmentMessage(
                    formatIdentifier: $0.adjustment.formatIdentifier, formatVersion: $0.adjustment.formatVersion,
                    data: Data($0.adjustment.data))
            },
            startOrientation: layer.flatMap {
                if case .original(let recorded) = $0.start { recorded?.rawValue ?? 0 } else { nil }
            },
            isReplay: layer?.isReplay ?? false, settings: settings,
            withRenditions: !streams.renditions.isEmpty, scratchDirectory: streams.scratchDirectory,
            bufferedBytesPerStream: streams.bufferedBytesPerStream, inputName: input.key.rawValue,
            uploadNames: (streams.output.map { [$0] } ?? []).map(\.objectName)
                + streams.renditions.map(\.upload.objectName),
            input: InputMessage(input), jobID: job.id, adjustmentID: adjustmentID)
        request.planOnly = planOnly
        return try sandbox.render(
            request, streams: streams,
            services: DecoderSandbox.Services(
                table: { query throws(JobFailure) in
                    try filters.table(
                        for: FilterStep(name: query.name, version: query.version, sha256: query.sha256),
                        index: query.index, from: storage, jobID: job.id)
                }, admission: settings.memoryAdmission,
                measured: { [metrics] child in metrics.decoderMemory(peak: child.peakBytes) }))
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
        Self.failure(error, input: input, jobID: job.id, adjustmentID: adjustmentID)
    }

    /// The same, wherever the render ran (a sandboxed child maps its own errors with it). What
    /// the storage said when reading the input is the storage's failure; what the sandbox saw
    /// of its child is a failure of the input, which is taken to be hostile.
    static func failure(_ error: any Error, input: RenderInput, jobID: Int64, adjustmentID: Int64?) -> JobFailure {
        switch error {
        case let failure as JobFailure: failure
        case let error as AdjustmentError: refused(error, jobID: jobID, adjustmentID: adjustmentID)
        case let error as RenderError: classify(error, input: input)
        case let error as StreamError: failure(error, doing: "cannot read \(input)")
        case let violation as SandboxViolation: failure(violation, input: input)
        default: .transient(code: .renderFailed, message: "\(input.key): \(error)", cause: error)
        }
    }

    static func refused(_ error: AdjustmentError, job: ClaimedJob, adjustmentID: Int64?) -> JobFailure {
        refused(error, jobID: job.id, adjustmentID: adjustmentID)
    }

    static func refused(_ error: AdjustmentError, jobID: Int64, adjustmentID: Int64?) -> JobFailure {
        let subject = "job \(jobID): " + (adjustmentID.map { "adjustment \($0): " } ?? "")
        return .permanent(code: FailureCode(error.code), message: subject + error.message, cause: error)
    }

    func header(of input: RenderInput) throws(JobFailure) -> SourceHeader {
        let source = try open(input)
        do {
            return try SourceHeader.read(from: source)
        } catch let error as CodecError {
            throw Self.classify(.codec(error), input: input)
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

    /// A child that crashed or was stopped by its filter was made to by the input, as far as
    /// anyone can tell: that input fails for good, and the worker goes on. A child killed from
    /// outside, or that could not start, says nothing about the input: the job is retried.
    static func failure(_ violation: SandboxViolation, input: RenderInput) -> JobFailure {
        let message =
            "\(input.key): \(violation) while rendering \(input)"
            + (violation.errors.isEmpty ? "" : " (it wrote: \(violation.errors))")
        switch violation.kind {
        case .crashed, .exited:
            return .permanent(
                code: .decoderCrashed,
                message: message + "; the file may be crafted to attack a decoder: keep it for inspection",
                cause: violation)
        case .forbiddenCall:
            return .permanent(
                code: .decoderForbiddenCall,
                message: message + "; the file may be crafted to attack a decoder: keep it for inspection",
                cause: violation)
        case .protocolBroken:
            return .permanent(code: .sandboxFailed, message: message, cause: violation)
        case .killed, .unavailable:
            return .transient(code: .sandboxFailed, message: message, cause: violation)
        }
    }

    /// Errors name their object: libjpeg's and libheif's about the input (its key) blame the input by
    /// identity; the rest concern the render itself or its outputs, and say so themselves.
    static func classify(_ error: RenderError, input: RenderInput) -> JobFailure {
        if let cause = error.codecError, cause.object == input.key.rawValue {
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
