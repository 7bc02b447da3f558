import DarkroomAdjustments
import DarkroomDatabase
import Foundation
import LibPQ
import Logging

/// Runs jobs from the queue: `concurrency` slots, each a thread with its own connection; one
/// heartbeat thread (own connection) that extends the leases of every job in hand and notices
/// cancelled ones; and one listening connection whose NOTIFYs wake idle slots (they also poll).
///
/// A job whose lease is gone (cancelled, expired, released at shutdown) is never recorded. Its
/// render file, if one was written, is left for `Jobs/clean-orphaned-renders.sql`: another
/// attempt of the same job writes the same path, so deleting it here could race with that
/// attempt's completion.
public final class Worker: Sendable {
    public let options: WorkerOptions
    let runner: RenderJobRunner
    let logger: Logger
    let state = WorkerState()

    public init(options: WorkerOptions, logger: Logger) {
        self.options = options
        runner = RenderJobRunner(storage: options.storage, registry: options.registry, settings: options.renderSettings)
        self.logger = logger
    }

    /// Stop claiming; jobs in hand get `shutdownGrace` to finish, then are released.
    public func stop() { state.stop() }

    /// Runs until drained (with `drain`), `maxDuration` passes, or `stop()`.
    public func run() -> WorkerSummary {
        let started = ContinuousClock.now
        var threads: [DispatchGroup] = []
        let slots = DispatchGroup()
        for slot in 0..<max(options.concurrency, 1) {
            slots.enter()
            spawn("darkroom-slot-\(slot)") { [self] in
                runSlot(slot, started: started)
                slots.leave()
            }
        }
        for (name, body) in [("darkroom-heartbeat", heartbeatLoop), ("darkroom-listen", listen)] where name != "darkroom-listen" || !options.drain {
            let group = DispatchGroup()
            group.enter()
            spawn(name) {
                body()
                group.leave()
            }
            threads.append(group)
        }

        waitForSlots(slots)
        state.stop()
        for thread in threads { thread.wait() }
        sayGoodbye()
        var summary = state.tally
        summary.elapsed = ContinuousClock.now - started
        return summary
    }

    /// Waits for the slots; once stopping, gives running jobs `shutdownGrace`, then releases
    /// what is still running so other workers take it over, and stops waiting for those slots.
    private func waitForSlots(_ slots: DispatchGroup) {
        while slots.wait(timeout: .now() + 0.2) == .timedOut {
            guard state.isStopping else { continue }
            let deadline = Date().addingTimeInterval(options.shutdownGrace.seconds)
            if state.waitForRunningJobs(until: deadline) {
                slots.wait()
                return
            }
            releaseUnfinished()
            return
        }
    }

    private func releaseUnfinished() {
        let unfinished = state.runningJobs
        logger.notice("shutdown grace period over; releasing unfinished jobs", metadata: [
            "job_ids": "\(unfinished.map(\.job.id))", "grace_s": "\(options.shutdownGrace.seconds)"])
        var connection: PostgresConnection?
        for running in unfinished {
            running.markLost("released at shutdown", cancelled: false)
            do {
                let live = try connection ?? PostgresConnection(options.databaseURL)
                connection = live
                try JobQueue(live, logger: logger).release(running.job, reason: "released unfinished at worker shutdown")
                state.record(.released)
            } catch {
                // The lease runs out on its own and the job is rescued; nothing is lost.
                logger.warning("could not release a job; it returns to the queue when its lease expires", metadata: [
                    "job_id": "\(running.job.id)", "error": "\(error)"])
            }
        }
    }

    private func sayGoodbye() {
        do {
            try JobQueue(try PostgresConnection(options.databaseURL), logger: logger).workerStopped(options.identity)
        } catch {
            logger.debug("could not remove this worker from darkroom.workers", metadata: ["error": "\(error)"])
        }
    }

    private func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }

    // MARK: Slots

    private func runSlot(_ slot: Int, started: ContinuousClock.Instant) {
        let name = "\(options.workerName)/\(slot)"
        var logger = self.logger
        logger[metadataKey: "worker"] = "\(name)"
        let connection = Reconnecting(url: options.databaseURL, state: state, logger: logger)
        while !state.isStopping {
            if let limit = options.maxDuration, ContinuousClock.now - started >= limit {
                logger.info("max duration reached; no more jobs will be claimed")
                state.stop()
                break
            }
            let claimed = connection.attempt { live in
                try JobQueue(live, logger: logger).claim(workerID: name, limit: 1, lease: options.lease, formats: options.formats)
            }
            guard let claimed else { continue }  // the database is away; `attempt` waited
            guard let job = claimed.first else {
                // A dead worker's job whose lease has run out is runnable, but its row stays
                // locked until the server notices the dead connection: wait for it rather
                // than leave it behind.
                if options.drain, connection.attempt({ try JobQueue($0, logger: logger).hasExpiredLeases() }) != true { break }
                state.waitForWork(timeout: options.drain ? .milliseconds(200) : options.pollInterval)
                continue
            }
            let running = RunningJob(job)
            state.started(running)
            process(running, connection: connection, logger: logger)
            state.finished(running)
        }
    }

    private func process(_ running: RunningJob, connection: Reconnecting, logger baseLogger: Logger) {
        let job = running.job
        var logger = baseLogger
        logger[metadataKey: "job_id"] = "\(job.id)"
        logger[metadataKey: "asset_id"] = "\(job.assetID)"
        let clock = ContinuousClock.now

        let result: Result<JobResult, JobFailure>
        do {
            guard let asset = connection.attempt({ try AssetStore($0).asset(id: job.assetID) }) else {
                throw JobFailure.transient(code: "database_unavailable", message: "could not read asset \(job.assetID)")
            }
            guard let asset else {
                throw JobFailure.permanent(code: "asset_not_found", message: "asset \(job.assetID) no longer exists")
            }
            // The asset's layers: the can-handle rule picks what an edit is rendered from, and
            // reverts and re-renders replay the chain they keep. The claim already made sure
            // this worker's editors read every layer it renders.
            guard let inputs = connection.attempt({ live -> (chain: [Adjustment], rerenderNeeded: Bool) in
                let store = AssetStore(live)
                let chain = try store.currentChain(of: asset.id)
                guard case let .rerender(identifier, target) = job.work else { return (chain, true) }
                return (chain, try store.rerenderNeeded(assetID: asset.id, formatIdentifier: identifier, belowVersion: target))
            }) else {
                throw JobFailure.transient(code: "database_unavailable", message: "could not read the adjustments of asset \(asset.id)")
            }
            result = .success(try runner.run(job, asset: asset, chain: inputs.chain, rerenderNeeded: inputs.rerenderNeeded,
                                             logger: logger, isCancelled: { running.lossReason != nil }))
        } catch let failure as JobFailure {
            result = .failure(failure)
        } catch {
            result = .failure(.transient(code: "internal", message: "\(error)"))
        }

        report(running, connection: connection, logger: logger) { queue in
            var failure: JobFailure
            switch result {
            case .success(let outcome):
                do {
                    let current = try queue.complete(job, with: outcome)
                    var metadata: Logger.Metadata = [
                        "kind": "\(job.work.kind)", "current_adjustment_id": "\(current.map(String.init) ?? "original")",
                        "ms": "\(Int((ContinuousClock.now - clock).seconds * 1000))"]
                    switch outcome.change {
                    case .layers(let layers):
                        metadata["output"] = "\(layers[layers.count - 1].renderedPath)"
                        metadata["size"] = "\(layers[layers.count - 1].renderedWidth)x\(layers[layers.count - 1].renderedHeight)"
                        if layers.count > 1 { metadata["layers"] = "\(layers.count)" }
                    case .original(let note), .none(let note):
                        metadata["outcome"] = "\(note)"
                    }
                    logger.info("job succeeded", metadata: metadata)
                    return .succeeded
                } catch let error as QueueError {
                    guard case .assetChanged = error else { throw error }
                    failure = .transient(code: error.code, message: error.description)
                }
            case .failure(let reported):
                failure = reported
            }
            let outcome = try queue.fail(job, failure, retryPolicy: options.retryPolicy)
            logger.error("job \(outcome == .failed ? "failed" : "will be retried")", metadata: [
                "code": "\(failure.code)", "error": "\(failure.message)", "attempt": "\(job.attempts)/\(job.maxAttempts)"])
            return outcome == .failed ? .failed : .retried
        }
    }

    /// Writes a job's outcome unless its lease is gone, reconnecting and retrying while the
    /// database is away. After a connection broke mid-completion, checks whether that
    /// completion committed before trying again, so a job is never completed twice.
    private func report(_ running: RunningJob, connection: Reconnecting, logger: Logger,
                        _ write: (JobQueue) throws -> WorkerState.Outcome) {
        let job = running.job
        var brokeWhileWriting = false
        while true {
            if let lost = running.lossReason {
                logger.warning("result not recorded", metadata: ["reason": "\(lost.reason)"])
                if lost.reason != "released at shutdown" { state.record(lost.cancelled ? .cancelled : .leaseLost) }
                return
            }
            do {
                let live = try connection.live()
                let queue = JobQueue(live, logger: logger)
                if brokeWhileWriting, let adjustmentID = try queue.completionCommitted(job) {
                    logger.info("job succeeded (its completion had committed before the connection broke)",
                                metadata: ["adjustment_id": "\(adjustmentID.map(String.init) ?? "none")"])
                    state.record(.succeeded)
                    return
                }
                state.record(try write(queue))
                return
            } catch QueueError.leaseLost(_, let loss) {
                running.markLost(loss.description, cancelled: loss == .cancelled)
            } catch let error as PostgresError where error.isConnectionFailure {
                brokeWhileWriting = true
                connection.lost(error)
            } catch {
                logger.error("could not record the job's outcome; its lease will expire and it will be retried",
                             metadata: ["error": "\(error)"])
                state.record(.leaseLost)
                return
            }
        }
    }

    // MARK: Heartbeat

    /// Extends the leases of every job in hand, marks lost ones (cancelled, expired), keeps this
    /// worker's row in `darkroom.workers` fresh and logs jobs rescued from dead workers.
    private func heartbeatLoop() {
        var logger = self.logger
        logger[metadataKey: "worker"] = "\(options.workerName)"
        let connection = Reconnecting(url: options.databaseURL, state: state, logger: logger, untilStopped: false)
        let identity = options.identity
        while true {
            let stopping = state.isStopping
            let jobs = state.runningJobs
            // Keep going while jobs are in hand during shutdown; their leases must stay alive.
            if stopping && jobs.isEmpty { return }
            _ = connection.attempt { live in
                let queue = JobQueue(live, logger: logger)
                let checks = try queue.heartbeat(identity, lease: options.lease, jobs: jobs.map(\.job),
                                                 formats: options.formats ?? [], stopping: stopping)
                for running in jobs {
                    guard let loss = checks[running.job.id]?.loss else { continue }
                    if running.lossReason == nil {
                        logger.warning("job lost its lease; its result will not be recorded", metadata: [
                            "job_id": "\(running.job.id)", "reason": "\(loss)"])
                    }
                    running.markLost(loss.description, cancelled: loss == .cancelled)
                }
                if !stopping { try queue.rescueExpiredLeases() }
            }
            // While stopping, beat often: the loop must notice quickly that the last job is done.
            state.sleep(stopping ? min(options.heartbeatInterval, .seconds(1)) : options.heartbeatInterval, returnEarlyOnStop: !stopping)
        }
    }

    // MARK: Wake-ups

    /// Holds its own connection for LISTEN: direct to PostgreSQL, never through PgBouncer.
    private func listen() {
        var connection: PostgresConnection?
        var reconnect = Backoff()
        while !state.isStopping {
            do {
                let live: PostgresConnection
                if let connection { live = connection } else {
                    live = try PostgresConnection(options.listenURL ?? options.databaseURL)
                    try live.listen(JobQueue.notificationChannel)
                    connection = live
                    state.wake()  // anything inserted while we were away
                }
                if try !live.waitForNotification(timeout: .seconds(1)).isEmpty {
                    state.wake()
                }
                reconnect.reset()
            } catch {
                connection = nil
                state.pause(reconnect.next())
            }
        }
    }
}

/// Exponential backoff with full jitter, for reconnecting: 0.5 s doubling to 30 s.
struct Backoff {
    private var attempt = 0

    mutating func next() -> Duration {
        let ceiling = min(30.0, 0.5 * pow(2, Double(attempt)))
        attempt += 1
        return .milliseconds(Int(Double.random(in: ceiling / 2...ceiling) * 1000))
    }

    mutating func reset() { attempt = 0 }
}
