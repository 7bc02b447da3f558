import Foundation

/// The bundled test photos (see Tests/Fixtures/exif-samples/README.md for their licence).
public enum Fixtures {
    /// `Tests/Fixtures`, found from this source file so tests run from any working directory.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // DarkroomTestSupport
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures")

    /// A file under `Tests/Fixtures/exif-samples`, e.g. `exifSample("orientation/landscape_6.jpg")`.
    public static func exifSample(_ relativePath: String) -> URL {
        root.appendingPathComponent("exif-samples").appendingPathComponent(relativePath)
    }

    public static func bytes(of url: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url))
    }
}
