import DarkroomImaging
import DarkroomMetadata
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import Testing

/// A render whose original's EXIF is larger than a JPEG's APP1 segment (a Xiaomi phone's HEIC,
/// 192 182 bytes of Exif item) carries what fits, with a warning, and never fails.
@Suite struct LargeExifRenderTests {
    @Test func xiaomisExifIsShortenedNotDropped() throws {
        let folder = NSTemporaryDirectory() + "darkroom-large-exif-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var settings = RenderSettings()
        settings.threads = 1
        let render = FileRender(
            inputPath: Fixtures.root.appendingPathComponent("corpus/pillow_heif/xiaomi.heic").path,
            outputPath: folder + "/out.jpg", formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
            data: Array(#"{"operations":[]}"#.utf8), settings: settings)
        let result = try render.render().result
        let shortened = result.warnings.filter { $0.code == "exif.shortened" }
        #expect(shortened.count == 1)
        #expect(shortened.first?.message.contains("thumbnail (IFD1)") == true, "\(result.warnings)")
        #expect(!result.warnings.contains { $0.code == "exif.not_copied" })

        let output = try Fixtures.bytes(of: URL(fileURLWithPath: folder + "/out.jpg"))
        let exif = try #require(JPEGSegments.exifPayload(of: output))
        #expect(exif.count <= 65_533)
        let metadata = MetadataReader.read(app1Payload: exif).metadata
        #expect(metadata.creationDate == ISO8601DateFormatter().date(from: "2023-04-27T19:44:18Z"))
        #expect(abs((metadata.latitude ?? 0) - 47.2272888997222) < 1e-9)
        #expect(abs((metadata.longitude ?? 0) - 39.6999921997222) < 1e-9)
        #expect(abs((metadata.altitude ?? 0) - 95.8) < 1e-9)
    }
}
