import DarkroomAdjustments
import DarkroomDatabase
import DarkroomMetrics
import Foundation
import Logging
import Timing

/// Runs jobs from the queue: `concurrency` slots, each a thread with its own connection; one
/// heartbeat thread (own connection) that extends the leases of every job in hand and notices
/// cancelled ones; and one listening connection whose NOTIFYs wake idle slots (they also poll).
///
/// What happens to a claimed job is decided by its `JobAttempt`; the threads here only feed it
/// events and do what it answers (`Worker+Attempt`).
///
/// A job whose lease is gone (cancelled, expired, released at shutdown) is never recorded. Its
/// render file, if one was written, is left for `Jobs/clean-orphaned-renders.sql`: another
/// attempt of the same job writes the same path, so deleting it here could race with that
/// attempt's completion.
public final class Worker: Sendable {
    public let options: WorkerOptions
    let logger: Logger
    let state: WorkerState
    /// The filters' LUTs, read once and shared by the slots.
    let filters = FilterTables()
    /// `--memory-budget`, shared by the slots' renders.
    let memory: WorkerMemory

    public init(options: WorkerOptions, logger: Logger) {
        self.options = options
        self.logger = logger
        let slots = max(options.concurrency, 1)
        state = WorkerState { [metrics = options.metrics] in metrics.jobsInHand($0, slots: slots) }
        memory = WorkerMemory(budget: options.memoryBudget) { [metrics = options.metrics] usage in
            metrics.memory(reserved: usage.reserved, waiting: usage.waiting)
        }
    }

    /// Stop claiming; jobs in hand get `shutdownGrace` to finish, then are released.
    public func stop() { state.stop() }

    /// Runs until drained (with `drain`), `maxDuration` passes, or `stop()`.
    public func run() -> WorkerSummary {
        let started = ContinuousClock.now
        options.metrics.jobsInHand(0, slots: max(options.concurrency, 1))
        options.metrics.memory(reserved: 0, waiting: 0)
        var threads: [DispatchGroup] = []
        let slots = DispatchGroup()
        for slot in 0..<max(options.concurrency, 1) {
            slots.enter()
            spawn("darkroom-slot-\(slot)") { [self] in
                runSlot(slot, started: started)
                slots.leave()
            }
        }
        for (name, body) in [("darkroom-heartbeat", heartbeatLoop), ("darkroom-listen", listen)]
        where name != "darkroom-listen" || !options.drain {
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

    /// Waits for the slots. Once stopping, tells every job in hand when the grace period ends;
    /// each job still rendering then is released by its attempt (on this thread). After that,
    /// slots still unwinding a stopped render are not waited for.
    private func waitForSlots(_ slots: DispatchGroup) {
        var releaseAt: ContinuousClock.Instant?
        let connection = Reconnecting(
            url: options.databaseURL, state: state, logger: logger, randomUnit: options.randomUnit, untilStopped: false)
        while slots.wait(timeout: .now() + 0.2) == .timedOut {
            guard state.isStopping else { continue }
            let deadline = releaseAt ?? ContinuousClock.now + options.shutdownGrace
            releaseAt = deadline
            for running in state.runningJobs {
                perform(running.handle(.shutdownRequested(releaseAt: deadline)), for: running, on: connection)
                perform(running.handle(.tick), for: running, on: connection)
            }
            if ContinuousClock.now >= deadline, state.unfinishedJobs.isEmpty { return }
        }
    }

    private func sayGoodbye() {
        do {
            try JobQueue(try DatabaseConnection(options.databaseURL), logger: logger).workerStopped(options.identity)
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
        let connection = Reconnecting(
            url: options.databaseURL, state: state, logger: logger, randomUnit: options.randomUnit)
        let attempt = JobAttempt.Configuration(
            lease: options.lease, retryBackoff: options.retryBackoff, randomUnit: options.randomUnit)
        while !state.isStopping {
            if let limit = options.maxDuration, ContinuousClock.now - started >= limit {
                logger.info("max duration reached; no more jobs will be claimed")
                state.stop()
                break
            }
            // The lease runs from the claim; take the time before asking, to err on the early side.
            let claimedAt = ContinuousClock.now
            let claimed = connection.attempt { live in
                try JobQueue(live, logger: logger).claim(
                    workerID: name, limit: 1, lease: options.lease, formats: options.formats,
                    release: DarkroomRelease.version)
            }
            guard let claimed else { continue }  // the database is away; `attempt` waited
            options.metrics.claimed(found: !claimed.isEmpty, in: ContinuousClock.now - claimedAt)
            guard let job = claimed.first else {
                // A dead worker's job whose lease has run out is runnable, but its row stays
                // locked until the server notices the dead connection: wait for it rather
                // than leave it behind.
                if options.drain, connection.attempt({ try JobQueue($0, logger: logger).hasExpiredLeases() }) != true {
                    break
                }
                state.waitForWork(timeout: options.drain ? .milliseconds(200) : options.pollInterval)
                continue
            }
            let running = state.start { threadsInUse in
                RunningJob(
                    job, attempt: attempt,
                    threads: SlotResources.renderThreads(threadsInUse: threadsInUse, cores: options.cores),
                    logger: logger, startedAt: claimedAt)
            }
            perform(running.handle(.claimed, now: claimedAt), for: running, on: connection)
            state.finished(running)
        }
    }

    // MARK: Heartbeat

    /// Extends the leases of every job in hand and tells each job what it learned (cancelled,
    /// expired) and that time passed; keeps this worker's row in `darkroom.workers` fresh and
    /// logs jobs rescued from dead workers.
    private func heartbeatLoop() {
        var logger = self.logger
        logger[metadataKey: "worker"] = "\(options.workerName)"
        let connection = Reconnecting(
            url: options.databaseURL, state: state, logger: logger, randomUnit: options.randomUnit, untilStopped: false)
        let identity = options.identity
        while true {
            let stopping = state.isStopping
            let jobs = state.unfinishedJobs
            // Keep going while jobs are in hand during shutdown; their leases must stay alive.
            if stopping && jobs.isEmpty { return }
            let sentAt = ContinuousClock.now
            let memory = self.memory.usage
            let checks = connection.attempt { live in
                try JobQueue(live, logger: logger).heartbeat(
                    identity, lease: options.lease, jobs: jobs.map(\.job),
                    formats: options.formats ?? [], stopping: stopping,
                    memory: WorkerMemoryReport(reservedBytes: memory.reserved, jobsWaiting: memory.waiting))
            }
            for running in jobs {
                if let check = checks?[running.job.id] {
                    perform(running.handle(.heartbeat(check), now: sentAt), for: running, on: connection)
                }
                perform(running.handle(.tick), for: running, on: connection)
            }
            if !stopping, checks != nil {
                _ = connection.attempt { try JobQueue($0, logger: logger).rescueExpiredLeases() }
            }
            // While stopping, beat often: the loop must notice quickly that the last job is done.
            state.sleep(
                stopping ? min(options.heartbeatInterval, .seconds(1)) : options.heartbeatInterval,
                returnEarlyOnStop: !stopping)
        }
    }

    // MARK: Wake-ups

    /// Holds its own connection for LISTEN: direct to PostgreSQL, never through PgBouncer.
    private func listen() {
        var connection: DatabaseConnection?
        var reconnect = BackoffWaits(.reconnect)
        while !state.isStopping {
            do {
                let live: DatabaseConnection
                if let connection {
                    live = connection
                } else {
                    live = try DatabaseConnection(options.listenURL ?? options.databaseURL)
                    try JobQueue.listenForJobs(on: live)
                    connection = live
                    state.wake()  // anything inserted while we were away
                }
                if try JobQueue.waitForJobs(on: live, timeout: .seconds(1)) {
                    state.wake()
                }
                reconnect.reset()
            } catch {
                connection = nil
                state.pause(reconnect.next(randomUnit: options.randomUnit.next()))
            }
        }
    }
}
