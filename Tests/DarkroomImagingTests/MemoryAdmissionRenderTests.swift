import ByteStreams
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import Testing

/// A render asks its `MemoryAdmission` for its plan's price once, before it allocates, and
/// gives the grant back however it ends; one it is refused neither renders nor publishes.
@Suite struct MemoryAdmissionRenderTests {
    /// An admission that grants (or refuses with `refusal`) and keeps the books.
    final class Ledger: MemoryAdmission, @unchecked Sendable {
        private let lock = NSLock()
        private var asked: [Int] = []
        private var given: [MemoryReservation] = []
        private var returned: [MemoryReservation] = []
        let refusal: RenderError?

        init(refusal: RenderError? = nil) { self.refusal = refusal }

        func reserve(_ bytes: Int, isCancelled: @escaping @Sendable () -> Bool) throws(RenderError)
            -> MemoryReservation
        {
            lock.lock()
            defer { lock.unlock() }
            asked.append(bytes)
            if let refusal { throw refusal }
            let reservation = MemoryReservation(id: given.count + 1, bytes: bytes)
            given.append(reservation)
            return reservation
        }

        func release(_ reservation: MemoryReservation) {
            lock.withLock { returned.append(reservation) }
        }

        var books: (asked: [Int], given: [MemoryReservation], returned: [MemoryReservation]) {
            lock.withLock { (asked, given, returned) }
        }
    }

    let input = Fixtures.exifSample("gps/DSCN0010.jpg")

    func request(_ ledger: Ledger, budget: Int = 4 << 20) -> RenderRequest {
        var request = RenderRequest(
            operations: [.sepia(intensity: 0.7)], limits: RenderLimits(memoryBudget: budget),
            spillDirectory: NSTemporaryDirectory())
        request.memoryAdmission = ledger
        return request
    }

    @Test func aRenderReservesItsPlansPriceAndGivesItBack() throws {
        let ledger = Ledger()
        let output = MemoryUpload()
        let display = MemoryUpload(name: "display")
        let result = try Renderer.render(
            request(ledger), from: try FileSource(path: input.path), to: output,
            renditions: [RenditionUpload(.display(), to: display)], orientation: .up)
        #expect(output.committed != nil && display.committed != nil)
        let books = ledger.books
        #expect(books.asked == [result.plan.memory.total])
        #expect(books.asked[0] <= 4 << 20)
        #expect(books.returned == books.given && books.given.count == 1)
    }

    /// The input breaks off in its scan data, after the grant: the render fails and returns it.
    @Test func aFailingRenderGivesItsGrantBack() throws {
        let ledger = Ledger()
        let source = ChunkedSource(
            try Fixtures.bytes(of: input), name: "originals/ab/ab12.jpg", maxChunk: 4096, failAfter: 40_000)
        let output = MemoryUpload()
        #expect(throws: (any Error).self) {
            _ = try Renderer.render(request(ledger), from: source, to: output, orientation: .up)
        }
        #expect(output.committed == nil)
        let books = ledger.books
        #expect(books.given.count == 1 && books.returned == books.given)
    }

    /// Cancelled while it waited for memory: nothing rendered, published or held.
    @Test func aRefusedRenderStopsBeforeItsStrips() throws {
        let ledger = Ledger(refusal: .cancelled)
        let output = MemoryUpload()
        let thrown = #expect(throws: RenderError.self) {
            _ = try Renderer.render(
                request(ledger), from: try FileSource(path: input.path), to: output, orientation: .up)
        }
        #expect(thrown?.code == .cancelled)
        #expect(output.committed == nil && output.bytes.isEmpty && output.aborted)
        #expect(ledger.books.asked.count == 1 && ledger.books.returned.isEmpty)
    }

    /// With a gain map the price covers both phases: the map's render, and the image's holding
    /// the map's JPEGs (the plan the result reports); never more than the budget.
    @Test func aGainMapsRenderIsPricedForItsLargerPhase() throws {
        let bytes = try Fixtures.bytes(of: Fixtures.root.appendingPathComponent("gainmaps/apple_gainmap_new.jpg"))
        let ledger = Ledger()
        let budget = 64 << 20
        let result = try Renderer.render(
            request(ledger, budget: budget), from: ChunkedSource(bytes, name: "in", maxChunk: 65536),
            to: MemoryUpload(), renditions: [RenditionUpload(.display(), to: MemoryUpload(name: "display"))],
            gainMapSource: { ChunkedSource(bytes, name: "in", maxChunk: 65536) }, orientation: .up)
        #expect(result.hdr != nil, "the map was carried")
        let books = ledger.books
        #expect(books.asked.count == 1 && books.returned == books.given)
        #expect(result.plan.memory.gainMap > 0)
        #expect(books.asked[0] >= result.plan.memory.total && books.asked[0] <= budget, "\(books.asked)")
    }
}
