/// Who lets a render use the memory its plan prices. A process running several renders at once
/// shares one budget between them (a worker's `WorkerMemory`): each render is planned against
/// the whole budget and asks here for its price once it has planned, before it allocates its
/// strips; `Renderer` gives the reservation back when the render ends, however it ends.
/// Imaging knows only bytes, nothing of jobs or slots.
public protocol MemoryAdmission: Sendable {
    /// Returns once `bytes` are the caller's, which may mean waiting for other renders to end.
    /// Throws `RenderError.cancelled` when `isCancelled` turns true first (nothing is then
    /// reserved), and a `.memoryBudgetExceeded` error when `bytes` could never be had.
    func reserve(_ bytes: Int, isCancelled: @escaping @Sendable () -> Bool) throws(RenderError) -> MemoryReservation

    /// Gives back what `reserve` granted; once per reservation.
    func release(_ reservation: MemoryReservation)
}

/// Bytes a `MemoryAdmission` granted; `id` is the admission's own name for the grant.
public struct MemoryReservation: Sendable, Hashable {
    public var id: Int
    public var bytes: Int

    public init(id: Int, bytes: Int) {
        self.id = id
        self.bytes = bytes
    }
}

extension RenderPlanner {
    /// What a render asks its admission for: the peak of its phases, before any of them
    /// allocates. Without a gain map that is the plan. With one, the map renders first beside
    /// the image's decoder (all of a HEIF's file) and the room its JPEGs may take (`held`);
    /// then the image renders holding those JPEGs and the join's buffer, planned in what is left
    /// (never more than its plan alone). Every phase was planned inside the budget, so neither
    /// is the price.
    public static func admissionPrice(_ plan: RenderPlan, gainMap: (plan: RenderPlan, held: Int)?) -> Int {
        guard let gainMap else { return plan.memory.total }
        let mapPhase = (plan.heifDecode?.fileBytes ?? 0) + gainMap.held + gainMap.plan.memory.total
        let imagePhase = plan.memory.total + gainMap.held + GainMapJoin.chunkBytes
        return min(plan.budget, max(mapPhase, imagePhase))
    }
}
