import Foundation

/// A task executor with threads of its own. Swift Testing runs synchronous tests on the
/// cooperative pool (one thread per core), and a slow one holds its thread until it ends; an
/// in-process server whose handlers ran there would wait for it. Work that prefers this executor
/// (`withTaskExecutorPreference`, child tasks included) runs here instead and never waits for
/// the pool.
public final class DedicatedThreads: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var closed = false

    public init(count: Int = 2, name: String = "test-executor") {
        for index in 0..<count {
            let thread = Thread { [self] in serve() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// After `shutdown()` a job still runs, on the global concurrent executor: a preference
    /// may always fall back to the default executor, while a dropped job would leave its task
    /// suspended forever (its frame leaked) and a refusal would trap the whole test run.
    public func enqueue(_ job: consuming ExecutorJob) {
        condition.lock()
        guard !closed else {
            condition.unlock()
            globalConcurrentExecutor.enqueue(job)
            return
        }
        jobs.append(UnownedJob(job))
        condition.signal()
        condition.unlock()
    }

    /// Lets the threads end once they have run what was enqueued before.
    public func shutdown() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while jobs.isEmpty && !closed { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
