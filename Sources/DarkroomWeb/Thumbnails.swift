import ByteStreams
import DarkroomImaging
import DarkroomStorage
import DarkroomWorker
import Dispatch
import Foundation
import Synchronization

/// Thumbnails for the before/after views, made on request by darkroom's own streaming renderer:
/// a scaled decode (libjpeg's DCT scaling) read in strips under a memory budget, so a full-size
/// original is never held whole. One is made at a time (the budget is the whole cost); what was
/// made is kept in a byte-bounded cache, and stored objects never change under their key.
public final class Thumbnails: Sendable {
    /// What a thumbnail is made from: a stored JPEG and how to turn it upright.
    public struct Source: Sendable, Hashable {
        public var key: StorageKey
        public var orientation: Orientation

        public init(key: StorageKey, orientation: Orientation) {
            self.key = key
            self.orientation = orientation
        }
    }

    /// Longest side asked for; the decode scale is the smallest that reaches it, so a
    /// thumbnail's longest side is between this and twice this.
    public let longestSide: Int
    public let memoryBudget: Int
    let storage: any ObjectStorage
    /// Where originals are decoded: a sandboxed child each (`serve --decoder-sandbox`, as a
    /// worker's renders), or nil for this process.
    let sandbox: DecoderSandbox?
    private let cache: ByteCache
    private let queue = DispatchQueue(label: "darkroom-thumbnails")
    static let quality = 82

    public init(
        storage: any ObjectStorage, longestSide: Int = 480, memoryBudget: Int = 64 << 20, cacheBytes: Int = 64 << 20,
        sandbox: DecoderSandbox? = nil
    ) {
        self.storage = storage
        self.longestSide = longestSide
        self.memoryBudget = memoryBudget
        self.sandbox = sandbox
        cache = ByteCache(capacity: cacheBytes)
    }

    /// The JPEG bytes of `source`'s thumbnail, from the cache or made now.
    public func thumbnail(of source: Source) async throws -> [UInt8] {
        let cacheKey = "\(source.key.rawValue)#\(source.orientation.rawValue)@\(longestSide)"
        if let cached = cache[cacheKey] { return cached }
        let bytes: [UInt8] = try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.make(source) })
            }
        }
        cache[cacheKey] = bytes
        return bytes
    }

    /// Reads the header once to pick the scale, then renders from a fresh stream of the same
    /// object (`Renderer.thumbnail`), in the sandbox when there is one.
    func make(_ source: Source) throws -> [UInt8] {
        // One object opened once for both passes: what was checked is what is served (issue 31).
        try storage.withObject(source.key) { stream in
            let output = MemoryUpload(name: "thumbnail of \(source.key)")
            if let sandbox {
                // The render ends before `withObject` returns: the stream never outlives it.
                try withoutActuallyEscaping(stream) { stream in
                    try sandbox.thumbnail(
                        of: source.key.rawValue, longestSide: longestSide, orientation: source.orientation,
                        quality: Self.quality, memoryBudget: memoryBudget, open: { try stream() }, to: output,
                        scratchDirectory: storage.scratchDirectory,
                        bufferedBytesPerStream: storage.bufferedBytesPerStream)
                }
                return output.bytes
            }
            var request = RenderRequest(
                operations: [], encoding: OutputEncoding(quality: Self.quality),
                limits: RenderLimits(memoryBudget: memoryBudget), spillDirectory: storage.scratchDirectory,
                keepICCProfile: true, threads: 1)
            request.streamBufferBytes = storage.bufferedBytesPerStream
            _ = try Renderer.thumbnail(
                request, longestSide: longestSide, orientation: source.orientation, open: stream, to: output)
            return output.bytes
        }
    }

    /// The bytes cached now.
    var cachedBytes: Int { cache.size }

    /// A stored object as it is (a rendition a browser shows itself), read on the thumbnails'
    /// queue; one larger than `maxBytes` is refused rather than held.
    func storedBytes(_ key: StorageKey, maxBytes: Int) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(
                    with: Result {
                        let source = try self.storage.openForReading(key)
                        var bytes: [UInt8] = []
                        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
                        defer { chunk.deallocate() }
                        while true {
                            let count = try source.read(into: chunk)
                            if count == 0 { return bytes }
                            guard bytes.count + count <= maxBytes else {
                                throw StoredObjectTooLarge(key: key, maxBytes: maxBytes)
                            }
                            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                        }
                    })
            }
        }
    }
}

/// A stored object larger than the dashboard serves whole.
struct StoredObjectTooLarge: Error, CustomStringConvertible {
    var key: StorageKey
    var maxBytes: Int
    var description: String { "\(key) is larger than the \(maxBytes) bytes the dashboard serves" }
}

/// Collects an encoder's bytes in memory: a thumbnail is small.
final class MemoryUpload: ObjectUpload {
    let objectName: String
    private(set) var bytes: [UInt8] = []

    init(name: String) { objectName = name }

    func write(_ chunk: UnsafeRawBufferPointer) throws(StreamError) { bytes.append(contentsOf: chunk) }

    func commit() throws(StreamError) -> Int { bytes.count }

    func abort() { bytes = [] }
}

/// Least recently used entries go first once the bytes held would pass `capacity`.
final class ByteCache: Sendable {
    private struct State {
        var entries: [String: (bytes: [UInt8], lastUse: UInt64)] = [:]
        var clock: UInt64 = 0
        var size = 0
    }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) { self.capacity = capacity }

    var size: Int { state.withLock { $0.size } }

    subscript(key: String) -> [UInt8]? {
        get {
            state.withLock { state in
                guard var entry = state.entries[key] else { return nil }
                state.clock += 1
                entry.lastUse = state.clock
                state.entries[key] = entry
                return entry.bytes
            }
        }
        set {
            state.withLock { state in
                if let old = state.entries.removeValue(forKey: key) { state.size -= old.bytes.count }
                guard let newValue, newValue.count <= capacity else { return }
                while state.size + newValue.count > capacity,
                    let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })
                {
                    state.size -= oldest.value.bytes.count
                    state.entries.removeValue(forKey: oldest.key)
                }
                state.clock += 1
                state.entries[key] = (newValue, state.clock)
                state.size += newValue.count
            }
        }
    }
}
