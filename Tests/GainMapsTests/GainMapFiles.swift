import DarkroomTestSupport
import Foundation
import GainMaps
import Testing

/// The gain-map fixtures: Tests/Fixtures/gainmaps (libavif's test files) and the corpus's.
enum GainMapFiles {
    static func url(_ path: String) -> URL { Fixtures.root.appendingPathComponent(path) }

    static func bytes(_ path: String) throws -> [UInt8] { try Fixtures.bytes(of: url(path)) }

    /// Every gain-map JPEG with the kind its metadata come in.
    static let jpegs: [(path: String, kind: String)] = [
        ("gainmaps/seine_sdr_gainmap_srgb.jpg", "hdrgm"),
        ("gainmaps/paris_exif_xmp_gainmap_bigendian.jpg", "hdrgm"),
        ("gainmaps/paris_exif_xmp_gainmap_littleendian.jpg", "hdrgm"),
        ("gainmaps/apple_gainmap_new.jpg", "apple"),
        ("gainmaps/apple_gainmap_old.jpg", "apple"),
        ("corpus/libvips/ultra-hdr.jpg", "hdrgm"),
        ("corpus/pillow/frame_size.mpo", "apple"),
    ]
}

/// Every TIFF reader in darkroom sizes a field by the same table.
@Suite struct TIFFTypeTests {
    @Test func sizesAreTIFFsWithIFDAsAnOffset() {
        let sizes = (1...13).map { TIFFType.byteSize(UInt16($0)) }
        #expect(sizes == [1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4])
        #expect(TIFFType.byteSize(0) == nil && TIFFType.byteSize(14) == nil)
    }
}
