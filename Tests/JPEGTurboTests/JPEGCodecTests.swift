import ByteStreams
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

@Suite struct JPEGCodecTests {
    @Test func headerOfARealCameraFile() throws {
        let decoder = try JPEGDecoder(source: FileSource(path: Fixtures.exifSample("gps/DSCN0010.jpg").path))
        #expect(decoder.header.width == 640 && decoder.header.height == 480)
        #expect(decoder.header.colorSpace == .ycbcr && !decoder.header.isProgressive)
        let exif = try #require(decoder.header.exifPayload)
        #expect(exif.starts(with: Array("Exif".utf8) + [0, 0]))
    }

    /// Opening moved from the decoder to its source: a missing file is the source's typed error.
    @Test func missingFileIsAnIOErrorNamingThePath() {
        let path = "/nonexistent/darkroom/photo.jpg"
        #expect {
            _ = try JPEGDecoder(source: FileSource(path: path))
        } throws: { error in
            let stream = error as? StreamError
            return stream?.code == .notFound && stream?.object == path && stream?.systemErrno == ENOENT
        }
    }

    @Test func textFileIsNotAJPEG() throws {
        let path = NSTemporaryDirectory() + "darkroom-\(UUID().uuidString).jpg"
        try Data("this is not a photo\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            _ = try JPEGDecoder(source: FileSource(path: path))
        } throws: { error in
            let jpeg = error as? JPEGError
            return jpeg?.code == .corrupt && jpeg?.object == path
                && (jpeg?.description.contains("Not a JPEG file") ?? false)
        }
    }

    /// The header's bound (docs/hostile-input.md): a photo whose markers, up to the end of the
    /// first scan's header, take exactly `maxHeaderBytes` decodes; one byte more is refused.
    @Test func headerBytesAreBounded() throws {
        let photo = try [UInt8](Data(contentsOf: Fixtures.exifSample("Kodak_CX7530.jpg")))
        var sos = 2
        while photo[sos + 1] != 0xDA { sos += 2 + (Int(photo[sos + 2]) << 8 | Int(photo[sos + 3])) }
        let headerEnd = sos + 2 + (Int(photo[sos + 2]) << 8 | Int(photo[sos + 3]))
        /// `size` bytes of COM segments (each at most 65 537 bytes, at least 4).
        func comments(_ size: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            var remaining = size
            while remaining > 0 {
                var segment = min(remaining, 65_537)
                if (1..<4).contains(remaining - segment) { segment -= 4 }
                bytes +=
                    [0xFF, 0xFE, UInt8((segment - 2) >> 8), UInt8((segment - 2) & 0xFF)]
                    + [UInt8](repeating: 0x20, count: segment - 4)
                remaining -= segment
            }
            return bytes
        }
        func padded(_ headerBytes: Int) -> [UInt8] {
            Array(photo[..<2]) + comments(headerBytes - headerEnd) + Array(photo[2...])
        }
        let decoder = try JPEGDecoder(source: ChunkedSource(padded(JPEGDecoder.maxHeaderBytes), maxChunk: 1 << 16))
        let (width, height) = try decoder.start()
        var rows = [UInt8](repeating: 0, count: width * 3 * 16)
        while try rows.withUnsafeMutableBytes({ try decoder.readRows(into: $0, rowStride: width * 3, rowCount: 16) })
            > 0
        {}
        #expect(decoder.nextRow == height)
        try decoder.finish()
        #expect {
            _ = try JPEGDecoder(source: ChunkedSource(padded(JPEGDecoder.maxHeaderBytes + 1), maxChunk: 1 << 16))
        } throws: { error in
            let jpeg = error as? JPEGError
            return jpeg?.code == .corrupt && jpeg?.byteOffset == 16 << 20
                && jpeg?.message == "the markers before the first scan take more than 16777216 bytes"
        }
    }

    /// The encoder no longer opens files; the file upload it writes into never writes over
    /// anything: an existing file stays as it was until the upload commits, and an aborted
    /// upload leaves it untouched with no temporary beside it.
    @Test func fileUploadsNeverOverwriteBeforeCommit() throws {
        let folder = NSTemporaryDirectory() + "darkroom-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/photo.jpg"
        try Data([1]).write(to: URL(fileURLWithPath: path))
        let upload = try FileUpload(finalPath: path)
        try [UInt8](repeating: 7, count: 100).withUnsafeBytes { try upload.write($0) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data([1]), "not visible before commit")
        upload.abort()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["photo.jpg"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data([1]))
        let replacing = try FileUpload(finalPath: path)
        try [UInt8](repeating: 7, count: 100).withUnsafeBytes { try replacing.write($0) }
        #expect(try replacing.commit() == 100)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: 7, count: 100))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["photo.jpg"])
    }
}
