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

/// The one reader of a TIFF directory's entries.
@Suite struct TIFFEntriesTests {
    /// Two entries claimed, big-endian, and the next directory's offset.
    static let directory: [UInt8] =
        [0, 2] + [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0] + [0x87, 0x69, 0, 4, 0, 0, 0, 1, 0, 0, 0, 26]
        + [0, 0, 0, 0]

    @Test func readsEveryEntryWithItsOffsetsInTheCallersTerms() throws {
        let read = try TIFFEntries.read([9, 9] + Self.directory, at: 2, origin: 2, bigEndian: true)
        #expect(read.claimed == 2)
        #expect(
            read.entries == [
                TIFFEntry(tag: 0x0112, type: 3, count: 1, entryOffset: 2),
                TIFFEntry(tag: 0x8769, type: 4, count: 1, entryOffset: 14),
            ])
        #expect(read.entries[1].valueFieldOffset == 22)
    }

    @Test func aCutDirectoryIsRefusedOrReadAsFarAsItGoes() throws {
        let cut = Array(Self.directory.prefix(20))
        #expect(throws: TIFFEntries.Problem.entriesCut(claimed: 2)) {
            try TIFFEntries.read(cut, at: 0, bigEndian: true)
        }
        let partial = try TIFFEntries.read(cut, at: 0, bigEndian: true, partial: true)
        #expect(partial.claimed == 2 && partial.entries.map(\.tag) == [0x0112])
        #expect(throws: TIFFEntries.Problem.countOutside) { try TIFFEntries.read([0], at: 0, bigEndian: true) }
    }
}
