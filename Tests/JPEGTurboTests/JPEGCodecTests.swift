import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

@Suite struct JPEGCodecTests {
    @Test func headerOfARealCameraFile() throws {
        let decoder = try JPEGDecoder(path: Fixtures.exifSample("gps/DSCN0010.jpg").path)
        #expect(decoder.header.width == 640 && decoder.header.height == 480)
        #expect(decoder.header.colorSpace == .ycbcr && !decoder.header.isProgressive)
        let exif = try #require(decoder.header.exifPayload)
        #expect(exif.starts(with: Array("Exif".utf8) + [0, 0]))
    }

    @Test func missingFileIsAnIOErrorNamingThePath() {
        let path = "/nonexistent/darkroom/photo.jpg"
        #expect {
            _ = try JPEGDecoder(path: path)
        } throws: { error in
            let jpeg = error as? JPEGError
            return jpeg?.code == .io && jpeg?.path == path && jpeg?.systemErrno == ENOENT
        }
    }

    @Test func textFileIsNotAJPEG() throws {
        let path = NSTemporaryDirectory() + "darkroom-\(UUID().uuidString).jpg"
        try Data("this is not a photo\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            _ = try JPEGDecoder(path: path)
        } throws: { error in
            let jpeg = error as? JPEGError
            return jpeg?.code == .corrupt && (jpeg?.description.contains("Not a JPEG file") ?? false)
        }
    }

    @Test func encoderRefusesToOverwrite() throws {
        let path = NSTemporaryDirectory() + "darkroom-\(UUID().uuidString).jpg"
        try Data([1]).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: JPEGError.self) { _ = try JPEGEncoder(path: path) }
    }
}
