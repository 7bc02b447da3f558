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
}
