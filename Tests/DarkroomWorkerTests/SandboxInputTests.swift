import ByteStreams
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import Testing

@testable import DarkroomWorker

/// A local original reaches the decoding child as a read-only descriptor, so none of it crosses
/// the channel; a source that is not a local file (an S3 body) still does. Both make the same
/// bytes, and the worker counts what the child read either way.
@Suite struct SandboxInputTests {
    /// A local file, watched: how often the worker read it, and what the child said it read.
    final class WatchedFile: ByteSource {
        let file: FileSource
        /// Whether it offers its descriptor, as a local file does.
        let offersDescriptor: Bool
        var reads = 0
        var readElsewhere = 0

        init(path: String, offersDescriptor: Bool) throws {
            file = try FileSource(path: path)
            self.offersDescriptor = offersDescriptor
        }

        var objectName: String { file.objectName }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
            reads += 1
            return try file.read(into: buffer)
        }

        func withUnreadFile<Result, Failure: Error>(_ body: (Int32?) throws(Failure) -> Result) throws(Failure)
            -> Result
        {
            offersDescriptor ? try file.withUnreadFile(body) : try body(nil)
        }

        func countReadElsewhere(_ bytes: Int) { readElsewhere += bytes }
    }

    final class MemoryUpload: ObjectUpload {
        let objectName = "thumbnail"
        var bytes: [UInt8] = []
        func write(_ bytes: UnsafeRawBufferPointer) throws(StreamError) { self.bytes += bytes }
        func commit() throws(StreamError) -> Int { bytes.count }
        func abort() {}
    }

    /// A sandboxed thumbnail of `path`, and every source the worker opened for it.
    static func thumbnail(of path: String, offersDescriptor: Bool) throws -> (bytes: [UInt8], opened: [WatchedFile]) {
        let sandbox = DecoderSandbox(executable: DarkroomCommand.executable.path)
        var opened: [WatchedFile] = []
        let upload = MemoryUpload()
        try sandbox.thumbnail(
            of: path, longestSide: 256, orientation: .up, quality: 80, memoryBudget: 64 << 20,
            open: {
                opened.append(try WatchedFile(path: path, offersDescriptor: offersDescriptor))
                return opened.last!
            }, to: upload, scratchDirectory: NSTemporaryDirectory(), bufferedBytesPerStream: 1 << 16)
        return (upload.bytes, opened)
    }

    @Test(arguments: [
        Fixtures.exifSample("Canon_40D.jpg").path,
        Fixtures.root.appendingPathComponent("corpus/osxphotos/IMG_1853.HEIC").path,
    ])
    func aLocalOriginalIsGivenToTheChildNotSentOverTheChannel(_ path: String) throws {
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let given = try Self.thumbnail(of: path, offersDescriptor: true)
        let sent = try Self.thumbnail(of: path, offersDescriptor: false)
        #expect(given.bytes == sent.bytes)
        #expect(given.bytes.starts(with: [0xFF, 0xD8]) && given.bytes.count > 1000)
        // Given: opened once, never read by the worker, and the child's count (a header pass,
        // then the pixels) is the worker's.
        #expect(given.opened.count == 1)
        #expect(given.opened.map(\.reads) == [0])
        #expect((size...(2 * size)).contains(given.opened[0].readElsewhere), "\(given.opened[0].readElsewhere)")
        // Sent: opened for each pass and read by the worker.
        #expect(sent.opened.count == 2)
        #expect(sent.opened.allSatisfy { $0.reads > 0 && $0.readElsewhere == 0 })
    }
}
