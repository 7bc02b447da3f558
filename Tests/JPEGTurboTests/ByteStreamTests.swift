import ByteStreams
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

/// libjpeg reads and writes through callbacks: any chunking gives the same pixels and
/// markers, and a stream's failure comes back as a typed error naming the object, never a
/// jump past Swift code.
@Suite struct ByteStreamTests {
    struct Decoded: Equatable {
        var header: JPEGHeader
        var pixels: [UInt8]
    }

    func decode(_ source: any ByteSource) throws -> Decoded {
        let (pixels, decoder) = try decodeWhole(source)
        return Decoded(header: decoder.header, pixels: pixels)
    }

    /// A progressive copy of `pixels`, encoded into memory.
    func progressive(_ image: Decoded) throws -> [UInt8] {
        let sink = MemoryUpload()
        let encoder = try JPEGEncoder(sink: sink)
        try encoder.start(
            width: image.header.width, height: image.header.height,
            encoding: JPEGEncoding(quality: 90, fullChroma: false, progressive: true))
        try image.pixels.withUnsafeBytes {
            try encoder.writeRows(from: $0, rowStride: image.header.width * 3, rowCount: image.header.height)
        }
        try encoder.finish()
        return sink.bytes
    }

    /// Baseline with EXIF, with an ICC profile, and progressive (read whole at start).
    @Test(arguments: [1, 2, 3] as [UInt64])
    func tinyRandomChunksDecodeIdentically(seed: UInt64) throws {
        for sample in ["gps/DSCN0010.jpg", "orientation/landscape_6.jpg"] {
            let bytes = try Fixtures.bytes(of: Fixtures.exifSample(sample))
            let whole = try decode(FileSource(path: Fixtures.exifSample(sample).path))
            let chunked = ChunkedSource(bytes, maxChunk: 7, seed: seed)
            #expect(try decode(chunked) == whole, "\(sample)")
            #expect(chunked.reads > bytes.count / 7, "the chunks really were tiny")
            #expect(whole.header.exifPayload != nil)
        }
        let withProfile = try decode(FileSource(path: Fixtures.exifSample("orientation/landscape_6.jpg").path))
        #expect(withProfile.header.iccProfile != nil, "APP2 markers are kept whatever the chunking")
        let progressiveBytes = try progressive(withProfile)
        let fromMemory = try decode(ChunkedSource(progressiveBytes, maxChunk: 1 << 20, seed: seed))
        #expect(fromMemory.header.isProgressive)
        #expect(try decode(ChunkedSource(progressiveBytes, maxChunk: 5, seed: seed)) == fromMemory)
    }

    /// Failing in the header, in the entropy data, and (progressive) in the pre-read of the
    /// whole file at start: an `.io` error naming the object, at the byte where it failed,
    /// with the stream's own error as its cause.
    @Test(arguments: [100, 20_000, 60_000])
    func aSourceThatFailsMidFileIsATypedIOError(failAfter: Int) throws {
        let bytes = try Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg"))
        #expect(bytes.count > failAfter)
        let source = ChunkedSource(bytes, name: "originals/ab/ab12.jpg", maxChunk: 4096, failAfter: failAfter)
        #expect {
            _ = try decode(source)
        } throws: { error in
            guard let jpeg = error as? JPEGError, let cause = jpeg.cause else { return false }
            return jpeg.code == .io && jpeg.object == "originals/ab/ab12.jpg" && jpeg.byteOffset == failAfter
                && cause.code == .io && cause.systemErrno == ECONNRESET && "\(jpeg)".contains("connection reset")
        }
    }

    @Test func truncatedAndEmptyStreamsAreDamagedNotIOErrors() throws {
        let bytes = try Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg"))
        #expect {
            _ = try decode(ChunkedSource(Array(bytes.prefix(bytes.count / 2)), name: "half.jpg"))
        } throws: { error in
            let jpeg = error as? JPEGError
            return jpeg?.code == .damaged && jpeg?.damage == .cutInScanData && jpeg?.cause == nil
                && jpeg?.byteOffset == bytes.count / 2 && "\(error)".contains("the file ends inside its scan data")
        }
        #expect {
            _ = try decode(ChunkedSource([], name: "empty.jpg"))
        } throws: { ($0 as? JPEGError)?.code == .corrupt && "\($0)".contains("Empty input file") }
    }

    /// The sink fails part way: while rows are written or at the end, the error names it.
    @Test(arguments: [10, 30_000])
    func aSinkThatFailsIsATypedIOError(failAfter: Int) throws {
        let image = try decode(FileSource(path: Fixtures.exifSample("gps/DSCN0010.jpg").path))
        let sink = MemoryUpload(name: "renders/1/2.jpg", failAfter: failAfter)
        #expect {
            let encoder = try JPEGEncoder(sink: sink)
            try encoder.start(width: 640, height: 480, encoding: JPEGEncoding(quality: 92))
            try image.pixels.withUnsafeBytes { try encoder.writeRows(from: $0, rowStride: 640 * 3, rowCount: 480) }
            try encoder.finish()
        } throws: { error in
            guard let jpeg = error as? JPEGError, let cause = jpeg.cause else { return false }
            return jpeg.code == .io && jpeg.object == "renders/1/2.jpg" && cause.systemErrno == ENOSPC
                && "\(jpeg)".contains("no space left")
        }
    }
}
