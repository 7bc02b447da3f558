import Foundation

/// Hands finished 8-bit strips from the thread that decodes and colors them to the thread
/// that encodes them. Two buffers: one being filled while the other is encoded. Either side
/// can fail; the other then stops at its next call instead of waiting forever.
final class StripHandoff: @unchecked Sendable {
    struct Strip {
        var buffer: Int
        var rows: Int
    }

    let buffers: [UnsafeMutableRawBufferPointer]
    private let condition = NSCondition()
    private var free: [Int]
    private var ready: [Strip] = []
    private var finished = false
    private var failure: (any Error)?

    init(count: Int, bytesEach: Int) {
        buffers = (0..<count).map { _ in .allocate(byteCount: bytesEach, alignment: 16) }
        free = Array(0..<count)
    }

    deinit { for buffer in buffers { buffer.deallocate() } }

    /// Producer: a buffer to fill, or nil when the consumer failed.
    func takeFree() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty, failure == nil { condition.wait() }
        return failure == nil ? free.removeFirst() : nil
    }

    func publish(_ strip: Strip) {
        condition.lock()
        ready.append(strip)
        condition.broadcast()
        condition.unlock()
    }

    /// Producer: no more strips.
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Consumer: the next strip, or nil at the end or after a failure.
    func takeReady() -> Strip? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty, !finished, failure == nil { condition.wait() }
        guard failure == nil, !ready.isEmpty else { return nil }
        return ready.removeFirst()
    }

    func giveBack(_ buffer: Int) {
        condition.lock()
        free.append(buffer)
        condition.broadcast()
        condition.unlock()
    }

    /// Either side: stop the other. The first failure wins.
    func fail(_ error: any Error) {
        condition.lock()
        if failure == nil { failure = error }
        condition.broadcast()
        condition.unlock()
    }

    var firstFailure: (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }
}
