import ByteStreams
import Foundation

/// Bytes in memory, handed out in chunks whose sizes a seeded generator picks (1 to
/// `maxChunk` bytes), as a network body arrives; optionally failing once `failAfter` bytes
/// have been delivered, as a dropped connection does.
public final class ChunkedSource: ByteSource {
    public let objectName: String
    private let bytes: [UInt8]
    private var offset = 0
    private var random: SplitMix
    private let maxChunk: Int
    private let failAfter: Int?
    /// How many reads were answered: with tiny chunks, many.
    public private(set) var reads = 0

    public init(_ bytes: [UInt8], name: String = "memory", maxChunk: Int = 7, seed: UInt64 = 1, failAfter: Int? = nil) {
        self.bytes = bytes
        objectName = name
        self.maxChunk = maxChunk
        random = SplitMix(seed: seed)
        self.failAfter = failAfter
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        reads += 1
        if let failAfter, offset >= failAfter {
            throw StreamError(
                code: .io, object: objectName, message: "connection reset by peer", byteOffset: offset,
                systemErrno: ECONNRESET)
        }
        var count = min(buffer.count, bytes.count - offset, 1 + Int(random.next() % UInt64(maxChunk)))
        if let failAfter { count = min(count, failAfter - offset) }
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
        offset += count
        return count
    }
}

/// Collects what is written; fails every write once `failAfter` bytes were taken. As an
/// upload, its bytes are "visible" only after `commit`.
public final class MemoryUpload: ObjectUpload {
    public let objectName: String
    public private(set) var bytes: [UInt8] = []
    public private(set) var committed: [UInt8]?
    public private(set) var aborted = false
    private let failAfter: Int?

    public init(name: String = "memory-out", failAfter: Int? = nil) {
        objectName = name
        self.failAfter = failAfter
    }

    public func write(_ chunk: UnsafeRawBufferPointer) throws(StreamError) {
        if let failAfter, bytes.count + chunk.count > failAfter {
            throw StreamError(
                code: .io, object: objectName, message: "no space left on device", byteOffset: bytes.count,
                systemErrno: ENOSPC)
        }
        bytes.append(contentsOf: chunk)
    }

    public func commit() throws(StreamError) -> Int {
        committed = bytes
        return bytes.count
    }

    public func abort() {
        aborted = true
        bytes = []
    }
}

/// Wraps a real upload and fails its writes once `failAfter` bytes went through, so a test
/// can see what the real one leaves behind after a failure (it must be aborted by its owner).
public final class FailingUpload: ObjectUpload {
    public let wrapped: any ObjectUpload
    private let failAfter: Int
    private var written = 0
    public private(set) var aborted = false

    public init(_ wrapped: any ObjectUpload, failAfter: Int) {
        self.wrapped = wrapped
        self.failAfter = failAfter
    }

    public var objectName: String { wrapped.objectName }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(StreamError) {
        guard written + bytes.count <= failAfter else {
            throw StreamError(
                code: .io, object: objectName, message: "no space left on device", byteOffset: written,
                systemErrno: ENOSPC)
        }
        try wrapped.write(bytes)
        written += bytes.count
    }

    public func commit() throws(StreamError) -> Int { try wrapped.commit() }

    public func abort() {
        aborted = true
        wrapped.abort()
    }
}

/// A small deterministic generator (SplitMix64), so a failing chunk pattern can be replayed.
public struct SplitMix: Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
