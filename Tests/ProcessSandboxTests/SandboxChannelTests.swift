import Foundation
import ProcessSandbox
import Testing

/// Frames on a socket pair: whole frames arrive whole, and a length or a cut that breaks the
/// rules is refused before anything is allocated for it.
@Suite struct SandboxChannelTests {
    static func pair(maxPayload: Int = 1 << 20) -> (SandboxChannel, SandboxChannel) {
        var ends: [Int32] = [-1, -1]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        return (
            SandboxChannel(descriptor: ends[0], maxPayload: maxPayload),
            SandboxChannel(descriptor: ends[1], maxPayload: maxPayload)
        )
    }

    @Test func framesArriveWholeAndInOrder() throws {
        let (left, right) = Self.pair()
        let frames = [
            SandboxFrame(kind: 1, id: 0, payload: []), SandboxFrame(kind: 22, id: 3, payload: Array(0..<200)),
            SandboxFrame(kind: 2, id: UInt32.max, payload: [UInt8](repeating: 7, count: 40_000)),
        ]
        let sender = Thread {
            for frame in frames { try! left.send(frame) }
        }
        sender.start()
        for frame in frames { #expect(try right.receive() == frame) }
    }

    @Test func theEndBetweenFramesIsNotAnError() throws {
        var (left, right): (SandboxChannel?, SandboxChannel) = Self.pair()
        try left!.send(SandboxFrame(kind: 5))
        left = nil
        #expect(try right.receive() == SandboxFrame(kind: 5))
        #expect(try right.receive() == nil)
    }

    /// A header announcing more than the channel takes, or a frame cut short, from a child that
    /// means harm.
    @Test func aFrameOverTheLimitOrCutShortIsRefused() throws {
        let (left, right) = Self.pair(maxPayload: 1024)
        // 4 GiB announced: refused from the header alone.
        write(left.descriptor, [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 22] as [UInt8], 9)
        let announced = #expect(throws: SandboxError.self) { try right.receive() }
        #expect(announced?.code == .protocolViolation)
        #expect(throws: SandboxError.self) {
            try left.send(SandboxFrame(kind: 1, payload: Array(repeating: 0, count: 2048)))
        }

        let (sender, receiver) = Self.pair()
        write(sender.descriptor, [10, 0, 0, 0, 0, 0, 0, 0, 22, 1, 2] as [UInt8], 11)
        shutdown(sender.descriptor, Int32(SHUT_WR))
        let cut = #expect(throws: SandboxError.self) { try receiver.receive() }
        #expect(cut?.code == .protocolViolation)
    }
}
