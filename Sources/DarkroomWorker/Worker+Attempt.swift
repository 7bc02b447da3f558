import DarkroomDatabase
import DarkroomMetrics
import DarkroomStorage
import Foundation
import Logging
import Timing

/// The I/O a job's attempt asks for: rendering, writes, waits and the final count. Whichever
/// thread fed the event does what it answers, on its own connection, and feeds back the result.
extension Worker {
    func perform(_ actions: [JobAttempt.Action], for running: RunningJob, on connection: Reconnecting) {
        var pending = actions
        while !pending.isEmpty {
            let action = pending.removeFirst()
            pending += perform(action, for: running, on: connection)
        }
    }

    private func perform(_ action: JobAttempt.Action, for running: RunningJob, on connection: Reconnecting)
        -> [JobAttempt.Action]
    {
        let job = running.job
        let logger = running.logger
        switch action {
        case .render:
            let started = ContinuousClock.now
            let rendered = render(running, on: connection)
            options.metrics.rendered(
                kind: job.work.kind, succeeded: rendered.isRendered, in: ContinuousClock.now - started)
            return running.handle(rendered)
        case .stopRendering(.leaseLost(let loss)):
            logger.warning("job lost its lease; its result will not be recorded", metadata: ["reason": "\(loss)"])
            return []
        case .stopRendering(.releasedAtShutdown):
            logger.notice(
                "shutdown grace period over; releasing the unfinished job",
                metadata: [
                    "grace_s": "\(options.shutdownGrace.seconds)"
                ])
            return []
        case .complete(let result):
            return running.handle(
                write(on: connection, logger: logger) { queue in
                    let completed = try queue.completeWritingFiles(job, with: result)
                    removeReplaced(completed.replaced, logger: logger)
                    return .completed(currentAdjustmentID: completed.current)
                })
        case .fail(let failure, let delay):
            return running.handle(
                write(on: connection, logger: logger) { queue in
                    .failureRecorded(try queue.fail(job, failure.recorded, retryDelay: delay))
                })
        case .release(let reason, let delay):
            return running.handle(
                write(on: connection, logger: logger) { queue in
                    try queue.release(job, reason: reason.description, delay: delay)
                    return .released
                })
        case .checkCommitted:
            return running.handle(
                write(on: connection, logger: logger) { queue in
                    try queue.completionCommitted(job).map { .completionCommitted(adjustmentID: $0) }
                        ?? .completionNotCommitted
                })
        case .reconnect(let delay):
            logger.warning(
                "database unavailable; reconnecting",
                metadata: ["retry_in_s": "\(String(format: "%.1f", delay.seconds))"])
            state.sleep(delay, returnEarlyOnStop: false)
            return running.handle(.readyToRetry)
        case .finish(let outcome):
            log(outcome, of: running)
            options.metrics.finished(outcome: outcome.metricsOutcome, code: outcome.metricsCode)
            state.record(outcome)
            return []
        }
    }

    /// Reads the asset and its chain of layers and renders the job with the threads it was given.
    private func render(_ running: RunningJob, on connection: Reconnecting) -> JobAttempt.Event {
        let job = running.job
        let asset: Asset
        switch connection.attemptResult({ try AssetStore($0).asset(id: job.assetID) }) {
        case .failure(let error):
            return .renderFailed(
                .transient(
                    code: .databaseUnavailable, message: "could not read asset \(job.assetID): \(error)", cause: error))
        case .success(nil):
            return .renderFailed(.permanent(code: .assetNotFound, message: "asset \(job.assetID) no longer exists"))
        case .success(let found?):
            asset = found
        }
        // The asset's layers: the can-handle rule picks what an edit is rendered from, and
        // reverts and re-renders replay the chain they keep. The claim already made sure this
        // worker's editors read every layer it renders (darkroom.can_run).
        // And the renditions the library writes now, read for each job: a new definition takes
        // effect at the next job, without a restart.
        // A renditions job writes only those its top layer lacks.
        let inputs: (chain: [Adjustment], rerenderNeeded: Bool, renditions: [RenditionDefinition])
        switch connection.attemptResult({
            live -> (chain: [Adjustment], rerenderNeeded: Bool, renditions: [RenditionDefinition]) in
            let store = AssetStore(live)
            var renditions = try RenditionCatalog(live).current()
            if case .renditions = job.work {
                let chain = try store.currentChain(of: asset.id)
                let missing = try chain.last.map { try store.missingRenditions(ofAdjustment: $0.id) } ?? []
                renditions.removeAll { definition in
                    !missing.contains { $0.name == definition.name && $0.version == definition.version }
                }
                return (chain, true, renditions)
            }
            if case .rerender(_, _, let upgrade?) = job.work {
                let read = try store.currentChain(of: asset.id, upgrading: upgrade)
                return (read.chain, read.upgrades, renditions)
            }
            let chain = try store.currentChain(of: asset.id)
            guard case .rerender(let identifier, let target, _) = job.work else { return (chain, true, renditions) }
            return (
                chain, try store.rerenderNeeded(assetID: asset.id, formatIdentifier: identifier, belowVersion: target),
                renditions
            )
        }) {
        case .failure(let error):
            return .renderFailed(
                .transient(
                    code: .databaseUnavailable,
                    message: "could not read the adjustments of asset \(asset.id): \(error)",
                    cause: error))
        case .success(let read):
            inputs = read
        }
        var settings = options.renderSettings
        settings.threads = running.threads
        settings.memoryAdmission = memory
        settings.renditions = []
        for definition in inputs.renditions {
            guard let rendition = RenditionVersion(definition) else {
                return .renderFailed(
                    .transient(
                        code: .internalError,
                        message: "rendition \(definition.name) version \(definition.version) has settings this "
                            + "worker does not know (\(definition.format), \(definition.metadata), \(definition.color)); "
                            + "run a worker of the same release as the schema"))
            }
            settings.renditions.append(rendition)
        }
        let runner = RenderJobRunner(
            storage: options.storage, registry: options.registry, settings: settings, metrics: options.metrics,
            filters: filters, sandbox: options.sandbox)
        do {
            return .rendered(
                try runner.run(
                    job, asset: asset, chain: inputs.chain, rerenderNeeded: inputs.rerenderNeeded,
                    logger: running.logger, isCancelled: { !running.renderIsWanted }))
        } catch {
            return .renderFailed(error)
        }
    }

    /// Deletes the rendition files a renditions job replaced, now that no record names them. One
    /// that cannot be deleted stays behind with a warning: the look is recorded either way.
    private func removeReplaced(_ paths: [String], logger: Logger) {
        for path in paths {
            do {
                try options.storage.remove(path)
            } catch {
                logger.warning(
                    "could not delete a replaced rendition file",
                    metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }

    /// Runs one write and says how it went, in the attempt's terms.
    private func write(on connection: Reconnecting, logger: Logger, _ body: (JobQueue) throws -> JobAttempt.Event)
        -> JobAttempt.Event
    {
        do {
            return try body(JobQueue(try connection.live(), logger: logger))
        } catch let error as QueueError {
            switch (error.code, error.leaseLoss) {
            case (.leaseLost, let loss?): return .writeRefused(loss)
            case (.assetChanged, _): return .assetChanged(error)
            default: return .writeFailed(error)
            }
        } catch let error where connection.isBroken(by: error) {
            connection.drop()
            return .connectionBroke(error)
        } catch {
            return .writeFailed(error)
        }
    }

    private func log(_ outcome: JobOutcome, of running: RunningJob) {
        let job = running.job
        let logger = running.logger
        switch outcome {
        case .succeeded(let result, .recorded(let current)):
            var metadata: Logger.Metadata = [
                "kind": "\(job.work.kind)", "current_adjustment_id": "\(current.map(String.init) ?? "original")",
                "ms": "\(Int((ContinuousClock.now - running.startedAt).seconds * 1000))",
                "threads": "\(running.threads)",
            ]
            switch result.change {
            case .layers(let layers):
                metadata["output"] = "\(layers[layers.count - 1].renderedPath)"
                metadata["size"] =
                    "\(layers[layers.count - 1].renderedWidth)x\(layers[layers.count - 1].renderedHeight)"
                if layers.count > 1 { metadata["layers"] = "\(layers.count)" }
            case .original(let note), .none(let note):
                metadata["outcome"] = "\(note)"
            case .renditions(let adjustmentID, let files, _):
                metadata["adjustment_id"] = "\(adjustmentID)"
                metadata["renditions"] = "\(files.count)"
            }
            logger.info("job succeeded", metadata: metadata)
        case .succeeded(_, .foundCommitted(let adjustmentID)):
            logger.info(
                "job succeeded (its completion had committed before the connection broke)",
                metadata: ["adjustment_id": "\(adjustmentID.map(String.init) ?? "none")"])
        case .failed(let failure), .retried(let failure, _):
            var metadata: Logger.Metadata = [
                "code": "\(failure.code)", "error": "\(failure.message)",
                "attempt": "\(job.attempts)/\(job.maxAttempts)",
            ]
            if let cause = failure.cause { metadata["cause"] = "\(String(reflecting: type(of: cause)))" }
            if case .retried(_, let after) = outcome {
                metadata["retry_in_s"] = "\(String(format: "%.1f", after.seconds))"
            }
            logger.error("job \(outcome.isRetry ? "will be retried" : "failed")", metadata: metadata)
        case .released(.shutdown):
            logger.notice("released the unfinished job; another worker will take it over")
        case .discarded(let loss):
            logger.warning("result not recorded", metadata: ["reason": "\(loss)", "loss": "\(loss.code)"])
        case .abandoned(let why):
            logger.error(
                "could not record the job's outcome; its lease will expire and it will be retried",
                metadata: ["error": "\(why)"])
        }
    }
}

extension JobOutcome {
    fileprivate var isRetry: Bool {
        if case .retried = self { return true }
        return false
    }
}

extension JobAttempt.Event {
    fileprivate var isRendered: Bool {
        if case .rendered = self { return true }
        return false
    }
}
