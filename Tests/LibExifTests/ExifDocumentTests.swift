import DarkroomTestSupport
import LibExif
import Testing

/// The libexif owner itself: options, error codes and captured warnings.
@Suite struct ExifDocumentTests {
    @Test func readsTypedValues() throws {
        let document = try ExifDocument(app1Payload: try exifPayload("gps/DSCN0010.jpg"))
        #expect(document.value(.make, in: .zero) == .ascii("NIKON"))
        #expect(document.value(.orientation, in: .zero) == .shorts([1]))
        #expect(document.value(.pixelXDimension, in: .exif) == .longs([640]))
        #expect(
            document.value(.gpsLatitude, in: .gps)
                == .rationals([.init(43, 1), .init(28, 1), .init(281_400_000, 100_000_000)]))
        #expect(document.value(.gpsAltitudeRef, in: .gps) == .bytes([0]))
        // Same number, other IFD: 0x0002 is InteroperabilityVersion there.
        #expect(document.value(.gpsLatitude, in: .interoperability) == .undefined(Array("0100".utf8)))
        #expect(
            document.value(.makerNote, in: .exif).map { if case .undefined(let b) = $0 { b.count } else { -1 } } == 3298
        )
        #expect(document.thumbnail?.count == 6702)
        #expect(document.thumbnail?.starts(with: [0xFF, 0xD8]) == true)
        #expect(document.warnings.isEmpty)
    }

    @Test func keepsUnknownTagsAndAddsNothing() throws {
        var exif = SyntheticExif(bigEndian: true)
        exif.ifd0 = [exif.short(0xC0DE, 7)]
        let document = try ExifDocument(app1Payload: exif.payload)
        // FOLLOW_SPECIFICATION would have added XResolution, YCbCrPositioning, ExifVersion….
        #expect(document.tags(in: .zero) == [ExifTag(0xC0DE)])
        #expect(document.tags(in: .exif).isEmpty)
        #expect(document.value(ExifTag(0xC0DE), in: .zero) == .shorts([7]))
    }

    @Test func rejectsNonExifBytes() {
        #expect {
            try ExifDocument(app1Payload: Array("http://ns.adobe.com/xap/1.0/\0".utf8))
        } throws: { ($0 as? ExifDocumentError)?.code == .notExifPayload }
        #expect {
            try ExifDocument(app1Payload: Array("Exif".utf8) + [0, 0] + [UInt8](repeating: 0, count: 70_000))
        } throws: { ($0 as? ExifDocumentError)?.code == .payloadTooLarge }
    }

    @Test func emptyOrCorruptBlockThrowsWithLibexifComplaints() throws {
        let corrupt: [UInt8] = Array("Exif".utf8) + [0, 0] + Array("XX".utf8) + [0, 42, 0, 0, 0, 8]
        let error = try #require(throws: ExifDocumentError.self) { try ExifDocument(app1Payload: corrupt) }
        #expect(error.code == .noReadableEntries)
        #expect(error.context["libexif"]?.contains("Unknown encoding") == true)
        #expect(error.message.contains("Treat the photo as having no EXIF"))
    }

    @Test func truncatedEntriesBecomeWarnings() throws {
        // The Exif IFD pointer aims past the end: libexif complains, keeps IFD0, skips the rest.
        var exif = SyntheticExif(bigEndian: false)
        exif.ifd0 = [exif.short(0x0112, 3)]
        exif.exif = [exif.ascii(0x9003, "2019:06:30 23:15:00")]
        var payload = exif.payload
        let pointer = try #require(payload.ifd0EntryIndex(of: 0x8769, bigEndian: false))
        payload.replaceSubrange(pointer + 8..<pointer + 12, with: [0xFF, 0xFF, 0, 0])
        let document = try ExifDocument(app1Payload: payload)
        #expect(document.value(.orientation, in: .zero) == .shorts([3]))
        #expect(document.tags(in: .exif).isEmpty)
        #expect(document.warnings.contains { $0.hasPrefix("ExifData: ") && $0.contains("past end of buffer") })
    }
}
