import DarkroomImaging
import Foundation
import Testing

@testable import DarkroomWorker

/// The worker's shared memory budget as a value: who is granted, who waits, in which order.
@Suite("The worker's memory pool")
struct MemoryPoolTests {
    typealias Ticket = MemoryPool.Ticket

    static func granted(_ answer: MemoryPool.Answer) -> Ticket? {
        if case .granted(let ticket) = answer { return ticket }
        return nil
    }

    static func queued(_ answer: MemoryPool.Answer) -> Ticket? {
        if case .queued(let ticket) = answer { return ticket }
        return nil
    }

    @Test func jobsThatFitTogetherRunTogether() throws {
        var pool = MemoryPool(capacity: 100)
        let first = try #require(Self.granted(pool.request(40)))
        let second = try #require(Self.granted(pool.request(60)))
        #expect(first != second)
        #expect(pool.reserved == 100 && pool.waiting == 0)
        #expect(pool.release(first).isEmpty)
        #expect(pool.release(second).isEmpty)
        #expect(pool.reserved == 0 && pool.granted.isEmpty)
    }

    @Test func aJobLargerThanTheWholeBudgetIsRefused() {
        var pool = MemoryPool(capacity: 100)
        #expect(pool.request(101) == .refused)
        #expect(pool.reserved == 0 && pool.waiting == 0, "a refusal leaves nothing behind")
        #expect(Self.granted(pool.request(100)) != nil, "the whole budget is not too large")
    }

    @Test func releaseWakesTheNextWaiter() throws {
        var pool = MemoryPool(capacity: 100)
        let big = try #require(Self.granted(pool.request(70)))
        let next = try #require(Self.queued(pool.request(70)))
        #expect(!pool.isGranted(next) && pool.waiting == 1 && pool.reserved == 70)
        #expect(pool.release(big) == [next])
        #expect(pool.isGranted(next) && pool.waiting == 0 && pool.reserved == 70)
    }

    /// A waiting big job blocks later small ones, though they would fit: no starvation.
    @Test func admissionIsFirstComeFirstServed() throws {
        var pool = MemoryPool(capacity: 100)
        let small = try #require(Self.granted(pool.request(30)))
        let big = try #require(Self.queued(pool.request(90)))
        let later = try #require(Self.queued(pool.request(20)), "20 bytes fit now, but the big job asked first")
        #expect(pool.waiting == 2 && pool.reserved == 30)
        #expect(pool.release(small) == [big], "20 more do not fit beside the big job")
        #expect(pool.isGranted(big) && !pool.isGranted(later))
        #expect(pool.release(big) == [later])
        #expect(pool.reserved == 20 && pool.waiting == 0)
    }

    @Test func oneReleaseLetsInEveryWaiterThatNowFitsInOrder() throws {
        var pool = MemoryPool(capacity: 100)
        let whole = try #require(Self.granted(pool.request(100)))
        let a = try #require(Self.queued(pool.request(30)))
        let b = try #require(Self.queued(pool.request(30)))
        let c = try #require(Self.queued(pool.request(50)))
        #expect(pool.release(whole) == [a, b], "c would overflow; it stays at the head")
        #expect(pool.reserved == 60 && pool.waiting == 1 && !pool.isGranted(c))
    }

    @Test func aCancelledWaiterLeavesTheQueue() throws {
        var pool = MemoryPool(capacity: 100)
        let running = try #require(Self.granted(pool.request(60)))
        let cancelled = try #require(Self.queued(pool.request(50)))
        let behind = try #require(Self.queued(pool.request(40)))
        // The head leaves: the one behind it fits now and goes in.
        #expect(pool.release(cancelled) == [behind])
        #expect(!pool.isGranted(cancelled) && pool.waiting == 0 && pool.reserved == 100)
        #expect(pool.release(running).isEmpty)
        #expect(pool.release(behind).isEmpty)
        #expect(pool.reserved == 0 && pool.granted.isEmpty)
    }

    @Test func aWaiterCancelledAfterItsGrantGivesTheGrantBack() throws {
        var pool = MemoryPool(capacity: 100)
        let first = try #require(Self.granted(pool.request(80)))
        let second = try #require(Self.queued(pool.request(80)))
        _ = pool.release(first)
        #expect(pool.isGranted(second))
        // It noticed its cancellation only now: releasing withdraws the grant.
        #expect(pool.release(second).isEmpty)
        #expect(pool.reserved == 0 && pool.waiting == 0)
    }

    @Test func releasingTwiceOrAnUnknownTicketChangesNothing() throws {
        var pool = MemoryPool(capacity: 100)
        let first = try #require(Self.granted(pool.request(50)))
        _ = pool.release(first)
        let before = pool
        #expect(pool.release(first).isEmpty)
        #expect(pool.release(Ticket(number: 99)).isEmpty)
        #expect(pool == before)
    }
}

/// The pool's owner with real threads, no I/O: a waiter blocks until a release lets it in, and
/// leaves the queue when it is no longer wanted.
@Suite("The worker's memory, shared by threads")
struct WorkerMemoryTests {
    @Test func aWaiterRunsOnceTheHolderReleases() throws {
        let memory = WorkerMemory(budget: 100)
        let held = try memory.reserve(80) { false }
        let granted = Mutexed<MemoryReservation?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            granted.set(try? memory.reserve(80) { false })
            done.signal()
        }.start()
        #expect(try waitUntil { memory.usage == WorkerMemory.Usage(reserved: 80, waiting: 1) })
        #expect(granted.value == nil, "it waits while the first holds the memory")
        memory.release(held)
        #expect(done.wait(timeout: .now() + 10) == .success)
        let second = try #require(granted.value)
        #expect(memory.usage == WorkerMemory.Usage(reserved: 80, waiting: 0))
        memory.release(second)
        #expect(memory.usage == WorkerMemory.Usage(reserved: 0, waiting: 0))
    }

    @Test func aCancelledWaiterStopsWaitingAndHoldsNothing() throws {
        let memory = WorkerMemory(budget: 100)
        let held = try memory.reserve(100) { false }
        let cancelled = Mutexed(false)
        let thrown = Mutexed<RenderError.Code?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do {
                _ = try memory.reserve(10) { cancelled.value }
            } catch let error as RenderError {
                thrown.set(error.code)
            } catch {
                Issue.record("not a render error: \(error)")
            }
            done.signal()
        }.start()
        #expect(try waitUntil { memory.usage.waiting == 1 })
        cancelled.set(true)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(thrown.value == .cancelled)
        #expect(memory.usage == WorkerMemory.Usage(reserved: 100, waiting: 0))
        memory.release(held)
        #expect(memory.usage == WorkerMemory.Usage(reserved: 0, waiting: 0))
    }

    @Test func moreThanTheBudgetFailsAtOnceNamingWhatItNeeds() {
        let memory = WorkerMemory(budget: 64 << 20)
        let refused = #expect(throws: RenderError.self) { try memory.reserve(65 << 20) { false } }
        #expect(refused?.code == .memoryBudgetExceeded)
        #expect(refused?.bytesNeeded == 65 << 20 && refused?.memoryBudget == 64 << 20)
        #expect(refused?.isPermanent == true)
        #expect(memory.usage == WorkerMemory.Usage(reserved: 0, waiting: 0))
    }

    @Test func everyChangeIsReportedInOrder() throws {
        let seen = Mutexed<[WorkerMemory.Usage]>([])
        let memory = WorkerMemory(budget: 100) { usage in seen.set(seen.value + [usage]) }
        let first = try memory.reserve(60) { false }
        memory.release(first)
        #expect(
            seen.value == [WorkerMemory.Usage(reserved: 60, waiting: 0), WorkerMemory.Usage(reserved: 0, waiting: 0)])
    }

    /// Polls `condition` for up to ten seconds.
    func waitUntil(_ condition: () -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }
}

/// A value threads hand each other in these tests.
final class Mutexed<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
}
