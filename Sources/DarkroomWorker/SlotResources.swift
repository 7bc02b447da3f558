/// How a worker shares its cores between the jobs it runs at once (its memory: `WorkerMemory`).
/// Pure, so the rule is tested without starting a worker.
enum SlotResources {
    /// Render threads for a job, decided when it starts: 2 (the JPEG encoder on its own thread)
    /// when both fit on the cores the jobs already in hand leave idle, as for a lone job; 1
    /// otherwise, because independent jobs keep the cores busier than one pipelined job (the
    /// encoder is about a third of a render's CPU time).
    static func renderThreads(threadsInUse: Int, cores: Int) -> Int {
        threadsInUse + 2 <= cores ? 2 : 1
    }
}
