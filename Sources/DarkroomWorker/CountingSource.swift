import ByteStreams

/// Passes a source's bytes through and counts them, so a render's reads are measured where
/// they happen (`darkroom_worker_read_bytes_total`), damaged inputs included, or as the
/// decoding child that read the file itself says it did. Every stream a render opens on its
/// input (a JPEG's gain map is reached by reading it again) adds to one `Tally`.
final class CountingSource: ByteSource {
    final class Tally {
        fileprivate(set) var bytes = 0
    }

    private let source: any ByteSource
    private let tally: Tally

    init(_ source: any ByteSource, tally: Tally) {
        self.source = source
        self.tally = tally
    }

    var objectName: String { source.objectName }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        let count = try source.read(into: buffer)
        tally.bytes += count
        return count
    }

    func withUnreadFile<Result, Failure: Error>(_ body: (Int32?) throws(Failure) -> Result) throws(Failure) -> Result {
        try source.withUnreadFile(body)
    }

    func countReadElsewhere(_ bytes: Int) {
        tally.bytes += bytes
        source.countReadElsewhere(bytes)
    }
}
