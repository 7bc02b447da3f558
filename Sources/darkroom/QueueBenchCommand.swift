import ArgumentParser
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomStorage
import Foundation
import Timing

extension Darkroom {
    /// For Tests/Benchmarks/queue-bench.sh: the queue's own claim and complete, without renders.
    struct QueueBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "queue-bench",
            abstract: "Benchmark the queue: claim and complete no-op jobs, or time single claims.",
            discussion: "Works on whatever jobs are queued in the database it is given; use a scratch database.",
            shouldDisplay: false)

        @OptionGroup var global: GlobalOptions
        @Option(help: "Threads, each with its own connection.") var workers: Int = 2
        @Option(help: "Jobs claimed per claim.") var batch: Int = 50
        @Option(
            name: .customLong("claim-latency"),
            help: "Instead: time this many single-job claims (each job is then released).")
        var claimSamples: Int?

        func run() throws {
            try withExitCodes {
                let url = try global.resolvedDatabaseURL()
                let logger = global.makeLogger()
                if let claimSamples {
                    let queue = JobQueue(try DatabaseConnection(url), logger: logger)
                    var samples: [Double] = []
                    for _ in 0..<claimSamples {
                        let started = ContinuousClock.now
                        let claimed = try queue.claim(workerID: "bench", limit: 1, lease: .seconds(60))
                        samples.append((ContinuousClock.now - started).milliseconds)
                        guard !claimed.isEmpty else { throw CommandFailure.invalidInput("no queued job left to claim") }
                    }
                    samples.sort()
                    let p = { (q: Double) in samples[min(samples.count - 1, Int(Double(samples.count) * q))] }
                    print(
                        String(
                            format: "claim latency over %d claims: p50 %.3f ms, p99 %.3f ms, max %.3f ms",
                            samples.count, p(0.5), p(0.99), samples.last ?? 0))
                    return
                }
                let started = ContinuousClock.now
                let counts = try (0..<workers).map { index in
                    { @Sendable () throws -> Int in
                        let connection = try DatabaseConnection(url)
                        let queue = JobQueue(connection, logger: logger)
                        var done = 0
                        while true {
                            let jobs = try queue.claim(workerID: "bench-\(index)", limit: batch, lease: .seconds(60))
                            if jobs.isEmpty { return done }
                            for job in jobs {
                                _ = try queue.complete(
                                    job,
                                    with: NewAdjustment(
                                        formatIdentifier: job.formatIdentifier ?? PipelineFormat.identifier,
                                        formatVersion: job.formatVersion ?? "1.0",
                                        data: job.data ?? [],
                                        renderedPath: StorageLayout.render(assetID: job.assetID, jobID: job.id)
                                            .rawValue, renderedWidth: 1, renderedHeight: 1, renderedBytes: 0))
                            }
                            done += jobs.count
                        }
                    }
                }.concurrently()
                let seconds = (ContinuousClock.now - started).milliseconds / 1000
                let total = counts.reduce(0, +)
                print(
                    String(
                        format: "darkroom claim (batch %d) + complete: %d jobs in %.2f s = %.0f jobs/s (%d workers)",
                        batch, total, seconds, Double(total) / seconds, workers))
            }
        }
    }
}

extension Array {
    /// Runs each body on its own thread and returns their results in order.
    func concurrently<T: Sendable>() throws -> [T] where Element == @Sendable () throws -> T {
        let lock = NSLock()
        nonisolated(unsafe) var results = [Result<T, any Error>?](repeating: nil, count: count)
        let group = DispatchGroup()
        for (index, body) in enumerated() {
            group.enter()
            Thread.detachNewThread {
                let result = Result { try body() }
                lock.withLock { results[index] = result }
                group.leave()
            }
        }
        group.wait()
        return try results.map { try $0!.get() }
    }
}
