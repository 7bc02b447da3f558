/// Where a decoder's bytes come from: a local file today, an HTTP body tomorrow. Read once,
/// front to back; whoever creates a source owns it and closes it when it goes away.
public protocol ByteSource: AnyObject {
    /// The object being read, as operators know it (a storage key or a path): errors name it.
    var objectName: String { get }
    /// Fills the front of `buffer` and returns how many bytes it wrote: at least 1, blocking
    /// until they arrive, or 0 at the end of the object.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int
    /// Runs `body` with the descriptor of the local file this source reads, while nothing has
    /// been read from it (the file from its start is then the whole stream); with nil for any
    /// other source. A decoding child reads its original through it, not over its channel.
    func withUnreadFile<Result, Failure: Error>(_ body: (Int32?) throws(Failure) -> Result) throws(Failure) -> Result
    /// Counts `bytes` read from that file through its descriptor by another process.
    func countReadElsewhere(_ bytes: Int)
}

extension ByteSource {
    public func withUnreadFile<Result, Failure: Error>(_ body: (Int32?) throws(Failure) -> Result) throws(Failure)
        -> Result
    { try body(nil) }

    public func countReadElsewhere(_ bytes: Int) {}
}

/// Where an encoder's bytes go. A sink may be used from another thread than the one that
/// made it, but only by one thread at a time.
public protocol ByteSink: AnyObject {
    var objectName: String { get }
    /// Takes all of `bytes` (it may keep a bounded amount buffered until `commit`).
    func write(_ bytes: UnsafeRawBufferPointer) throws(StreamError)
}

/// A sink whose object appears whole or not at all: nothing is visible under its name until
/// `commit` returns; `abort` (or dropping it uncommitted) leaves no object and no temporary.
public protocol ObjectUpload: ByteSink {
    /// Makes the written bytes durable and visible under the object's name; returns their count.
    @discardableResult
    func commit() throws(StreamError) -> Int
    /// Throws the written bytes away. Safe to call more than once, and after a failed commit.
    func abort()
    /// Runs `body` with the descriptor of the local file this upload writes, while nothing has
    /// been written to it (whoever writes through it writes the whole object); with nil for any
    /// other upload. A decoding child writes its outputs through it, not over its channel.
    func withUnwrittenFile<Result, Failure: Error>(_ body: (Int32?) throws(Failure) -> Result) throws(Failure)
        -> Result
    /// Counts `bytes` written to that file through its descriptor by another process, before
    /// `commit`, which checks that the file holds exactly what was counted.
    func countWrittenElsewhere(_ bytes: Int)
}

extension ObjectUpload {
    public func withUnwrittenFile<Result, Failure: Error>(_ body: (Int32?) throws(Failure) -> Result)
        throws(Failure) -> Result
    { try body(nil) }

    public func countWrittenElsewhere(_ bytes: Int) {}
}

extension ByteSource {
    /// Reads until `buffer` is full or the object ends; returns the bytes read.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let got = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if got == 0 { break }
            filled += got
        }
        return filled
    }

    /// The object's bytes, at most `limit` of them: a longer object is read no further.
    public func readAll(upTo limit: Int) throws(StreamError) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(limit, 1), alignment: 1)
        defer { buffer.deallocate() }
        let count = try readFully(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<limit]))
        return Array(buffer[..<count])
    }
}

/// Copies `source` into `sink` through one buffer of `chunkSize` bytes; returns the bytes copied.
@discardableResult
public func copyStream(from source: any ByteSource, to sink: any ByteSink, chunkSize: Int = 1 << 20) throws(StreamError)
    -> Int
{
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
    defer { buffer.deallocate() }
    var total = 0
    while true {
        let got = try source.read(into: buffer)
        if got == 0 { return total }
        try sink.write(UnsafeRawBufferPointer(rebasing: buffer[..<got]))
        total += got
    }
}

/// A source whose first bytes were already read (to tell its format): hands them out again,
/// then reads on from the source it wraps, so a decoder still sees the object from its start.
public final class ReplayingSource: ByteSource {
    private let prefix: [UInt8]
    private var offset = 0
    private let rest: any ByteSource

    public init(prefix: [UInt8], then rest: any ByteSource) {
        self.prefix = prefix
        self.rest = rest
    }

    public var objectName: String { rest.objectName }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        guard offset < prefix.count else { return try rest.read(into: buffer) }
        let count = min(buffer.count, prefix.count - offset)
        guard count > 0 else { return 0 }
        prefix.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
        offset += count
        return count
    }
}
