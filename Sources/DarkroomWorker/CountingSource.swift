import ByteStreams

/// Passes a source's bytes through and counts them, so a render's reads are measured where
/// they happen (`darkroom_worker_read_bytes_total`), damaged inputs included.
final class CountingSource: ByteSource {
    private let source: any ByteSource
    private(set) var bytesRead = 0

    init(_ source: any ByteSource) {
        self.source = source
    }

    var objectName: String { source.objectName }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        let count = try source.read(into: buffer)
        bytesRead += count
        return count
    }
}
