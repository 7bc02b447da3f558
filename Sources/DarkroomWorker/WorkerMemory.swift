import DarkroomImaging
import Foundation

/// The worker's memory budget, owned once and shared by its slots: each render reserves its
/// plan's price here (`MemoryAdmission`) and waits, on its slot's thread, until `MemoryPool`
/// grants it. The heartbeat runs on its own thread, so a waiting job's lease stays alive.
final class WorkerMemory: MemoryAdmission, @unchecked Sendable {
    /// What the heartbeat reports and the gauges show.
    struct Usage: Sendable, Equatable {
        var reserved: Int
        var waiting: Int
    }

    /// How often a waiting render looks at whether it is still wanted (a lost lease, shutdown).
    static let cancellationCheck: TimeInterval = 0.2

    private let condition = NSCondition()
    private var pool: MemoryPool
    /// Told each change, under the lock, so the values it sees arrive in order.
    private let changed: @Sendable (Usage) -> Void

    init(budget: Int, changed: @escaping @Sendable (Usage) -> Void = { _ in }) {
        pool = MemoryPool(capacity: budget)
        self.changed = changed
    }

    var usage: Usage {
        condition.lock()
        defer { condition.unlock() }
        return Usage(reserved: pool.reserved, waiting: pool.waiting)
    }

    func reserve(_ bytes: Int, isCancelled: @escaping @Sendable () -> Bool) throws(RenderError) -> MemoryReservation {
        condition.lock()
        let answer = pool.request(bytes)
        report()
        let ticket: MemoryPool.Ticket
        switch answer {
        case .refused:
            let budget = pool.capacity
            condition.unlock()
            throw .budgetTooSmall(needed: bytes, budget: budget, reason: "this render's plan")
        case .granted(let granted):
            condition.unlock()
            return MemoryReservation(id: granted.number, bytes: bytes)
        case .queued(let queued):
            ticket = queued
        }
        while !pool.isGranted(ticket) {
            _ = condition.wait(until: Date().addingTimeInterval(Self.cancellationCheck))
            // Asked outside the lock: the job's own lock must never wait on this one.
            condition.unlock()
            let cancelled = isCancelled()
            condition.lock()
            if cancelled {
                finish(ticket)
                condition.unlock()
                throw .cancelled
            }
        }
        condition.unlock()
        return MemoryReservation(id: ticket.number, bytes: bytes)
    }

    func release(_ reservation: MemoryReservation) {
        condition.lock()
        defer { condition.unlock() }
        finish(MemoryPool.Ticket(number: reservation.id))
    }

    /// Under the lock.
    private func finish(_ ticket: MemoryPool.Ticket) {
        if !pool.release(ticket).isEmpty { condition.broadcast() }
        report()
    }

    private func report() {
        changed(Usage(reserved: pool.reserved, waiting: pool.waiting))
    }
}
