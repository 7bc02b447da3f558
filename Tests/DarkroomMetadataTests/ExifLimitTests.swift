import DarkroomMetadata
import DarkroomTestSupport
import LibExif
import Testing

/// The bounds of the EXIF reader and rewriter (docs/hostile-input.md), and the layouts the
/// fuzzer found where libexif reads data the rewrite did not keep.
@Suite struct ExifLimitTests {
    /// Little-endian TIFF directories laid out one after the other from offset 8, each entry's
    /// value either a number or the offset of another directory; IFD0 is the first.
    struct LinkedDirectories {
        enum Value {
            case number(UInt32)
            case directory(Int)
        }
        typealias Entry = (tag: UInt16, type: UInt16, count: UInt32, value: Value)
        var directories: [[Entry]]
        /// IFD0's next-directory link (IFD1).
        var ifd1: Int?

        func offset(of index: Int) -> Int {
            8 + directories[..<index].reduce(0) { $0 + 2 + 12 * $1.count + 4 }
        }

        var payload: [UInt8] {
            func le(_ value: UInt32, _ size: Int) -> [UInt8] {
                (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            }
            var tiff = Array("II".utf8) + le(42, 2) + le(8, 4)
            for (index, entries) in directories.enumerated() {
                tiff += le(UInt32(entries.count), 2)
                for entry in entries {
                    let value: UInt32 =
                        switch entry.value {
                        case .number(let number): number
                        case .directory(let target): UInt32(offset(of: target))
                        }
                    tiff += le(UInt32(entry.tag), 2) + le(UInt32(entry.type), 2) + le(entry.count, 4) + le(value, 4)
                }
                tiff += le(index == 0 ? UInt32(ifd1.map(offset(of:)) ?? 0) : 0, 4)
            }
            return Array("Exif".utf8) + [0, 0] + tiff
        }
    }

    static let make: LinkedDirectories.Entry = (0x010F, 2, 4, .number(0x0043_4241))  // "ABC\0"
    static func pointer(_ tag: UInt16, to directory: Int, count: UInt32 = 1) -> LinkedDirectories.Entry {
        (tag, 4, count, .directory(directory))
    }
    static let latitude: LinkedDirectories.Entry = (0x0001, 2, 2, .number(0x4E))  // GPSLatitudeRef "N"

    func rewrite(_ payload: [UInt8]) throws(ExifRewriteError) -> [UInt8] {
        try OutputExif.rewrite(app1Payload: payload, pixelWidth: 10, pixelHeight: 10)
    }

    func rewriteError(_ payload: [UInt8]) -> ExifRewriteError.Code? {
        do {
            _ = try rewrite(payload)
            return nil
        } catch { return error.code }
    }

    @Test func payloadSize() throws {
        var exif = SyntheticExif(bigEndian: false)
        exif.ifd0 = [exif.ascii(0x010F, "Maker"), exif.short(0x0112, 6)]
        let sample = exif.payload
        let atLimit = sample + [UInt8](repeating: 0, count: ExifDocument.maximumPayloadSize - sample.count)
        #expect(atLimit.count == 65_533)
        #expect(MetadataReader.read(app1Payload: atLimit).metadata.orientation == 6)
        #expect(try MetadataReader.read(app1Payload: rewrite(atLimit)).metadata.orientation == 1)
        #expect(throws: ExifDocumentError.self) { try ExifDocument(app1Payload: atLimit + [0]) }
        #expect(rewriteError(atLimit + [0]) == .payloadTooLarge)
    }

    @Test func directories() throws {
        // IFD0 and a chain of directories, each pointing to the next (GPS, then Interoperability ones).
        func chain(_ count: Int) -> [UInt8] {
            LinkedDirectories(
                directories: [[Self.make, Self.pointer(0x8825, to: 1)]]
                    + (1..<count).map { $0 + 1 < count ? [Self.pointer(0xA005, to: $0 + 1)] : [Self.latitude] }
            ).payload
        }
        #expect(rewriteError(chain(16)) == nil)
        #expect(rewriteError(chain(17)) == .tooManyDirectories)
    }

    /// Found by fuzz-exif-rewrite: IFD1 held the GPS pointer, so libexif read a location that
    /// unlinking IFD1 removed.
    @Test func pointerInIFD1IsRefused() throws {
        let layout = LinkedDirectories(
            directories: [[Self.make], [Self.pointer(0x8825, to: 2)], [Self.latitude]], ifd1: 1)
        #expect(
            try ExifDocument(app1Payload: layout.payload).value(.gpsLatitudeRef, in: .gps) == .ascii("N"),
            "libexif reads it")
        #expect(rewriteError(layout.payload) == .misplacedPointer)
    }

    @Test func secondExifIFDIsRefused() {
        // libexif reads an Exif IFD that a GPS IFD points to; the rewrite patches only IFD0's.
        let inGPS = LinkedDirectories(directories: [
            [Self.make, Self.pointer(0x8825, to: 1)], [Self.pointer(0x8769, to: 2)], [Self.latitude],
        ])
        #expect(rewriteError(inGPS.payload) == .misplacedPointer)
        let toIFD0 = LinkedDirectories(directories: [
            [Self.make, Self.pointer(0x8825, to: 1)], [Self.pointer(0x8769, to: 0)],
        ])
        #expect(rewriteError(toIFD0.payload) == .misplacedPointer)
        let twice = LinkedDirectories(directories: [
            [Self.make, Self.pointer(0x8769, to: 1), Self.pointer(0x8769, to: 2)], [Self.latitude], [Self.latitude],
        ])
        #expect(rewriteError(twice.payload) == .misplacedPointer)
    }

    @Test func gpsReachedThroughAnOddPointerIsKept() {
        // libexif follows a pointer whatever its count says (45-gps_ifd.jpg has count 0), so its
        // directory is kept from the thumbnail eraser: a thumbnail on top of it is refused.
        let thumbnail: [LinkedDirectories.Entry] = [(0x0201, 4, 1, .directory(1)), (0x0202, 4, 1, .number(12))]
        for count: UInt32 in [0, 1, 2] {
            let layout = LinkedDirectories(
                directories: [[Self.make, Self.pointer(0x8825, to: 1, count: count)], [Self.latitude], thumbnail],
                ifd1: 2)
            #expect(rewriteError(layout.payload) == .overlappingStructures, "count \(count)")
        }
    }
}
