import ByteStreams

/// What every target does with libFuzzer's input: copy it into an array (parsers take `[UInt8]`)
/// and run `body`. A property that does not hold stops the process through `require`, which
/// libFuzzer records as a crash with the input that caused it.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int, _ body: ([UInt8]) -> Void) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    body(bytes)
    return 0
}

/// A property of the parser: when it does not hold, the run stops with `message`.
public func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fatalError("property violated: \(message())", file: file, line: line) }
}

/// Parsers refuse bad input with their own typed error; any other error is a bug.
public func requireTyped<Expected: Error>(
    _ error: any Error, _ expected: Expected.Type,
    file: StaticString = #fileID, line: UInt = #line
) {
    require(error is Expected, "threw \(type(of: error)) (\(error)), expected \(Expected.self)", file: file, line: line)
}

/// The input as a stream, handed out in pieces of varying size (1 byte to 8 KiB, chosen from the
/// input's length) so the codec's refills meet every boundary. It never fails.
public final class MemorySource: ByteSource {
    public let objectName = "fuzz-input"
    private let bytes: [UInt8]
    private var offset = 0
    private var state: UInt64

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        state = UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15 | 1
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        let count = min(buffer.count, bytes.count - offset, 1 + Int(state % 8192))
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
        offset += count
        return count
    }
}

/// Exact equality for doubles, NaN included (a round trip must keep the very bits).
public func sameBits(_ left: Double?, _ right: Double?) -> Bool {
    left?.bitPattern == right?.bitPattern
}
