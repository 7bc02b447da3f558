import DarkroomQueue
import Foundation
import LibPQ
import Logging

/// Runs jobs from the queue: `concurrency` slots, each a thread with its own connection,
/// plus one listening connection whose NOTIFYs wake idle slots (they also poll).
public final class Worker: Sendable {
    public let options: WorkerOptions
    let runner: RenderJobRunner
    let logger: Logger
    let state = WorkerState()

    public init(options: WorkerOptions, logger: Logger) {
        self.options = options
        runner = RenderJobRunner(storage: options.storage, settings: options.renderSettings)
        self.logger = logger
    }

    /// Asks the slots to stop claiming; jobs in hand finish first.
    public func stop() { state.stop() }

    /// Runs until drained (with `drain`), `maxDuration` passes, or `stop()`.
    public func run() -> WorkerSummary {
        let started = ContinuousClock.now
        let finished = DispatchGroup()
        for slot in 0..<max(options.concurrency, 1) {
            finished.enter()
            let thread = Thread { [self] in
                runSlot(slot, started: started)
                finished.leave()
            }
            thread.name = "darkroom-slot-\(slot)"
            thread.start()
        }
        let listenerDone = DispatchGroup()
        if !options.drain {
            listenerDone.enter()
            Thread { [self] in
                listen()
                listenerDone.leave()
            }.start()
        }
        finished.wait()
        state.stop()
        listenerDone.wait()
        var summary = state.tally
        summary.elapsed = ContinuousClock.now - started
        return summary
    }

    // MARK: Slots

    private func runSlot(_ slot: Int, started: ContinuousClock.Instant) {
        let name = "\(options.workerName)/\(slot)"
        var logger = self.logger
        logger[metadataKey: "worker"] = "\(name)"
        var connection: PostgresConnection?
        var reconnect = Backoff()
        while !state.isStopping {
            if let limit = options.maxDuration, ContinuousClock.now - started >= limit {
                logger.info("max duration reached; no more jobs will be claimed")
                state.stop()
                break
            }
            do {
                let live = try connection ?? PostgresConnection(options.databaseURL)
                connection = live
                let queue = JobQueue(live, logger: logger)
                guard let job = try queue.claim(workerID: name, limit: 1, lease: options.lease).first else {
                    if options.drain { break }
                    state.waitForWork(timeout: options.pollInterval)
                    continue
                }
                reconnect.reset()
                try process(job, queue: queue, connection: live, logger: logger)
            } catch let error as PostgresError where error.isConnectionFailure || connection?.isConnected == false {
                connection = nil
                let delay = reconnect.next()
                logger.warning("database unavailable; reconnecting", metadata: [
                    "error": "\(error.message)", "retry_in_s": "\(String(format: "%.1f", delay.seconds))"])
                state.pause(delay)
            } catch {
                logger.error("unexpected error; pausing this slot", metadata: ["error": "\(error)"])
                state.pause(.seconds(1))
            }
        }
    }

    private func process(_ job: ClaimedJob, queue: JobQueue, connection: PostgresConnection, logger baseLogger: Logger) throws {
        var logger = baseLogger
        logger[metadataKey: "job_id"] = "\(job.id)"
        logger[metadataKey: "asset_id"] = "\(job.assetID)"
        let clock = ContinuousClock.now
        do {
            guard let asset = try AssetStore(connection).asset(id: job.assetID) else {
                throw JobFailure.permanent(code: "asset_not_found", message: "asset \(job.assetID) no longer exists")
            }
            let adjustment = try runner.run(job, asset: asset, logger: logger)
            let adjustmentID = try queue.complete(job, with: adjustment)
            state.record(.succeeded)
            logger.info("job succeeded", metadata: [
                "adjustment_id": "\(adjustmentID)", "output": "\(adjustment.renderedPath)",
                "size": "\(adjustment.renderedWidth)x\(adjustment.renderedHeight)",
                "ms": "\(Int((ContinuousClock.now - clock).seconds * 1000))"])
        } catch let failure as JobFailure {
            let outcome = try queue.fail(job, failure, retryPolicy: options.retryPolicy)
            state.record(outcome == .failed ? .failed : .retried)
            logger.error("job \(outcome == .failed ? "failed" : "will be retried")", metadata: [
                "code": "\(failure.code)", "error": "\(failure.message)", "attempt": "\(job.attempts)/\(job.maxAttempts)"])
        } catch QueueError.leaseLost(_, let reason) {
            state.record(.leaseLost)
            logger.warning("result not recorded: the lease was lost", metadata: ["reason": "\(reason)"])
        }
    }

    // MARK: Wake-ups

    /// Holds its own (direct, never pooled) connection for LISTEN.
    private func listen() {
        var connection: PostgresConnection?
        var reconnect = Backoff()
        while !state.isStopping {
            do {
                let live: PostgresConnection
                if let connection { live = connection } else {
                    live = try PostgresConnection(options.databaseURL)
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
