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
            return jpeg?.code == .corrupt && jpeg?.path == path && (jpeg?.description.contains("Not a JPEG file") ?? false)
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
