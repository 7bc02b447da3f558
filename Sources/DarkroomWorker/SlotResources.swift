import DarkroomDatabase
import DarkroomImaging

/// How a worker shares the machine between the jobs it runs at once. Pure, so the rules are
/// tested without starting a worker.
enum SlotResources {
    /// One job's share of the worker's memory budget: the slots together never exceed the
    /// total the operator gave.
    static func memoryBudgetPerJob(total: Int, slots: Int) -> Int {
        total / max(slots, 1)
    }

    /// Render threads for a job, decided when it starts: 2 (the JPEG encoder on its own thread)
    /// when both fit on the cores the jobs already in hand leave idle, as for a lone job; 1
    /// otherwise, because independent jobs keep the cores busier than one pipelined job (the
    /// encoder is about a third of a render's CPU time).
    static func renderThreads(threadsInUse: Int, cores: Int) -> Int {
        threadsInUse + 2 <= cores ? 2 : 1
    }

    /// A render that did not fit names one job's need against one job's share, but the operator
    /// sets the worker's whole budget: say what that must be.
    static func advise(_ failure: JobFailure, memoryBudget: Int, slots: Int) -> JobFailure {
        guard slots > 1, let error = failure.cause as? RenderError, error.code == .memoryBudgetExceeded,
            let needed = error.bytesNeeded
        else { return failure }
        var advised = failure
        advised.message +=
            "; this worker shares --memory-budget \(ByteCount.format(memoryBudget)) between \(slots) jobs: "
            + "give it at least \(ByteCount.format(needed * slots)), or lower --concurrency"
        return advised
    }
}
