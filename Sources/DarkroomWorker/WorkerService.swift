import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Timing
import UnixSignals

/// The worker as a swift-service-lifecycle `Service`. On graceful shutdown (SIGTERM or SIGINT
/// when run in a `ServiceGroup`) the worker stops claiming, gives running jobs the grace
/// period, releases what did not finish, and `run` returns normally.
public final class WorkerService: Service, Sendable {
    public let worker: Worker
    private let result = ResultBox()

    public init(worker: Worker) {
        self.worker = worker
    }

    /// Available once `run` has returned.
    public var summary: WorkerSummary? { result.value }

    public func run() async throws {
        let summary = await withGracefulShutdownHandler {
            // The worker blocks its threads on libpq; run it off the cooperative pool.
            await withCheckedContinuation { (continuation: CheckedContinuation<WorkerSummary, Never>) in
                let thread = Thread { [worker] in continuation.resume(returning: worker.run()) }
                thread.name = "darkroom-worker"
                thread.start()
            }
        } onGracefulShutdown: { [worker] in
            // Stopped before it says so: once the line is out, no slot starts another claim.
            worker.stop()
            worker.logger.notice(
                "shutdown requested: no more claims; running jobs get the grace period",
                metadata: [
                    "grace_s": "\(worker.options.shutdownGrace.seconds)"
                ])
        }
        result.set(summary)
    }

    /// Runs the worker in a `ServiceGroup` that turns SIGTERM and SIGINT into a graceful
    /// shutdown, and returns what it did. `companions` (the metrics listener) run beside it
    /// and stop after it; one that fails shuts the worker down gracefully and its error is thrown.
    public static func runUntilDoneOrSignalled(_ worker: Worker, companions: [any Service] = [], logger: Logger)
        async throws -> WorkerSummary
    {
        let service = WorkerService(worker: worker)
        // A group stops its services in reverse order: the companions outlive the worker.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: companions.map { .init(service: $0, failureTerminationBehavior: .gracefullyShutdownGroup) }
                    + [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
        return service.summary ?? WorkerSummary()
    }
}

private final class ResultBox: Sendable {
    private let stored = Mutex<WorkerSummary?>(nil)
    var value: WorkerSummary? { stored.withLock { $0 } }
    func set(_ summary: WorkerSummary) { stored.withLock { $0 = summary } }
}
