import Foundation

/// The bundled test photos (see Tests/Fixtures/exif-samples/README.md for their licence).
public enum Fixtures {
    /// `Tests/Fixtures`, found from this source file so tests run from any working directory.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // DarkroomTestSupport
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures")

    /// A file under `Tests/Fixtures/exif-samples`, e.g. `exifSample("orientation/landscape_6.jpg")`.
    /// A file of Photos' exports (`Tests/Fixtures/apple`), by name.
    public static func apple(_ name: String) -> String { root.appendingPathComponent("apple/\(name)").path }

    /// A `.cube` LUT of `Tests/Fixtures/luts`, by name.
    public static func lut(_ name: String) -> String { root.appendingPathComponent("luts/\(name)").path }

    public static func exifSample(_ relativePath: String) -> URL {
        root.appendingPathComponent("exif-samples").appendingPathComponent(relativePath)
    }

    public static func bytes(of url: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url))
    }
}
