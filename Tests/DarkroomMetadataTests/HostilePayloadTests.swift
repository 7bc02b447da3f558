import DarkroomMetadata
import DarkroomTestSupport
import LibExif
import Testing

/// Payloads built to break a TIFF walker: each must give a structured error (or, where the
/// damage is harmless, a valid result), never a crash or a hang.
@Suite struct HostilePayloadTests {
    private func rewriteError(_ payload: [UInt8], width: Int = 10, height: Int = 10) -> ExifRewriteError? {
        do {
            _ = try OutputExif.rewrite(app1Payload: payload, pixelWidth: width, pixelHeight: height)
            return nil
        } catch {
            return error
        }
    }

    private func sample(bigEndian: Bool = false) -> SyntheticExif {
        var exif = SyntheticExif(bigEndian: bigEndian)
        exif.ifd0 = [exif.ascii(0x010F, "Maker"), exif.short(0x0112, 6)]
        exif.exif = [exif.short(0xA002, 40), exif.short(0xA003, 30)]
        exif.thumbnail = [0xFF, 0xD8, 1, 2, 3, 4, 0xFF, 0xD9]
        return exif
    }

    /// `payload` with a 32-bit value written at `index`, in the sample's byte order.
    private func patched(_ payload: [UInt8], at index: Int, _ value: UInt32, bigEndian: Bool = false) -> [UInt8] {
        var payload = payload
        payload.replaceSubrange(index..<index + 4, with: SyntheticExif(bigEndian: bigEndian).encode(value))
        return payload
    }

    /// Payload index of IFD0's next-IFD field in `sample()`.
    private func ifd1PointerIndex(_ payload: [UInt8]) -> Int {
        6 + 8 + 2 + 12 * Int(payload[14])
    }

    @Test func notExifOrWrongSize() {
        #expect(rewriteError([])?.code == .notExifPayload)
        #expect(rewriteError(Array("Exif".utf8))?.code == .notExifPayload)
        #expect(rewriteError(Array("JFIF\0\0II*\0".utf8))?.code == .notExifPayload)
        #expect(
            rewriteError(Array("Exif".utf8) + [0, 0] + [UInt8](repeating: 0, count: 65_528))?.code == .payloadTooLarge)
        let valid = sample().payload
        #expect(rewriteError(valid, width: 0)?.code == .invalidDimensions)
        #expect(rewriteError(valid, height: -3)?.code == .invalidDimensions)
        #expect(rewriteError(valid, width: Int(UInt32.max) + 1)?.code == .invalidDimensions)
    }

    @Test func badHeaders() {
        let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]
        #expect(rewriteError(exifHeader)?.code == .invalidTIFFHeader)
        #expect(rewriteError(exifHeader + Array("II".utf8))?.code == .invalidTIFFHeader)
        #expect(rewriteError(exifHeader + Array("IM".utf8) + [42, 0, 8, 0, 0, 0])?.code == .invalidTIFFHeader)
        #expect(rewriteError(exifHeader + Array("II".utf8) + [43, 0, 8, 0, 0, 0])?.code == .invalidTIFFHeader)
        #expect(rewriteError(exifHeader + Array("MM".utf8) + [0, 42, 0, 0])?.code == .invalidTIFFHeader)
    }

    @Test func offsetsPastTheEnd() {
        let valid = sample().payload
        #expect(rewriteError(patched(valid, at: 10, 0xFFFF_FFF0))?.code == .outOfBounds, "IFD0 offset")
        #expect(
            rewriteError(patched(valid, at: 10, UInt32(valid.count - 6 - 1)))?.code == .outOfBounds,
            "IFD0 count cut off")
        var manyEntries = valid
        manyEntries[14] = 0xF4
        manyEntries[15] = 0x01  // 500 entries
        #expect(rewriteError(manyEntries)?.code == .outOfBounds, "entries run off the end")

        let exifPointer = valid.ifd0EntryIndex(of: 0x8769, bigEndian: false)! + 8
        #expect(rewriteError(patched(valid, at: exifPointer, 0x7FFF_FFFF))?.code == .outOfBounds, "Exif IFD offset")
    }

    @Test(arguments: [false, true])
    func truncatedAnywhere(bigEndian: Bool) throws {
        let valid = sample(bigEndian: bigEndian).payload
        let exifIFDEnd = 6 + 8 + (2 + 12 * 3 + 4) + 6 + (2 + 12 * 2 + 4)  // header, IFD0 + "Maker\0", Exif IFD
        for length in 0..<valid.count {
            let truncated = Array(valid.prefix(length))
            do {
                let rewritten = try OutputExif.rewrite(app1Payload: truncated, pixelWidth: 10, pixelHeight: 10)
                #expect(length >= exifIFDEnd, "cut at \(length) still walked")
                #expect(rewritten.count == length)
                let document = try ExifDocument(app1Payload: rewritten)
                #expect(document.value(.orientation, in: .zero) == .shorts([1]))
            } catch let error as ExifRewriteError {
                #expect(length < exifIFDEnd, "cut at \(length): \(error)")
            }
            _ = MetadataReader.read(app1Payload: truncated)
        }
    }

    @Test func zeroEntries() {
        var exif = SyntheticExif(bigEndian: true)
        exif.ifd0 = [exif.short(0x0112, 6)]
        var payload = exif.payload
        payload[14] = 0
        payload[15] = 0
        #expect(rewriteError(payload)?.code == .emptyDirectory)

        let valid = sample().payload
        let exifPointer = valid.ifd0EntryIndex(of: 0x8769, bigEndian: false)! + 8
        let exifIFD = 6 + Int(valid[exifPointer])
        var emptyExif = valid
        emptyExif[exifIFD] = 0
        emptyExif[exifIFD + 1] = 0
        #expect(rewriteError(emptyExif)?.code == .emptyDirectory)
    }

    @Test(arguments: [false, true])
    func loops(bigEndian: Bool) {
        let valid = sample(bigEndian: bigEndian).payload
        let exifPointer = valid.ifd0EntryIndex(of: 0x8769, bigEndian: bigEndian)! + 8
        let ifd1Pointer = 6 + 8 + 2 + 12 * 3

        #expect(
            rewriteError(patched(valid, at: exifPointer, 8, bigEndian: bigEndian))?.code == .overlappingStructures,
            "Exif IFD is IFD0")
        #expect(
            rewriteError(patched(valid, at: exifPointer, 10, bigEndian: bigEndian))?.code == .overlappingStructures,
            "Exif IFD inside IFD0")
        #expect(
            rewriteError(patched(valid, at: 10, 0, bigEndian: bigEndian))?.code == .overlappingStructures,
            "IFD0 on the header")
        #expect(
            rewriteError(patched(valid, at: ifd1Pointer, 8, bigEndian: bigEndian))?.code == .overlappingStructures,
            "IFD1 is IFD0")
        let exifIFDOffset = UInt32(valid[bigEndian ? exifPointer + 3 : exifPointer])
        #expect(
            rewriteError(patched(valid, at: ifd1Pointer, exifIFDOffset, bigEndian: bigEndian))?.code
                == .overlappingStructures, "IFD1 is the Exif IFD")
    }

    /// Found by fuzz-exif-rewrite: Make's bytes stored over IFD0's own next-IFD field changed
    /// when the thumbnail was unlinked. A value inside a directory the rewrite patches is refused.
    @Test(arguments: [false, true])
    func valuesStoredInsideAPatchedDirectoryAreRefused(bigEndian: Bool) {
        let valid = sample(bigEndian: bigEndian).payload
        #expect(rewriteError(valid) == nil)
        let makeOffsetField = valid.ifd0EntryIndex(of: 0x010F, bigEndian: bigEndian)! + 8
        let nextIFDField = UInt32(ifd1PointerIndex(valid) - 6 - 2)
        #expect(
            rewriteError(patched(valid, at: makeOffsetField, nextIFDField, bigEndian: bigEndian))?.code
                == .overlappingStructures, "Make over IFD0's next-IFD field")
        let exifPointer = valid.ifd0EntryIndex(of: 0x8769, bigEndian: bigEndian)! + 8
        let exifIFD = UInt32(valid[bigEndian ? exifPointer + 3 : exifPointer])
        #expect(
            rewriteError(patched(valid, at: makeOffsetField, exifIFD + 2, bigEndian: bigEndian))?.code
                == .overlappingStructures, "Make over the Exif IFD's entries")
    }

    @Test func malformedPointer() {
        var exif = SyntheticExif(bigEndian: false)
        exif.ifd0 = [exif.short(0x0112, 6), exif.short(0x8769, 8)]  // a SHORT "pointer"
        #expect(rewriteError(exif.payload)?.code == .malformedEntry)
    }

    @Test func thumbnailOverlappingKeptDataIsRefused() throws {
        var exif = sample()
        exif.ifd0.append(exif.ascii(0x010E, "A description that must survive"))
        let valid = exif.payload
        // Point the thumbnail at IFD0's out-of-line strings.
        let ifd1 = 6 + Int(valid[ifd1PointerIndex(valid)]) + Int(valid[ifd1PointerIndex(valid) + 1]) << 8
        let thumbnailOffsetField = ifd1 + 2 + 12 * 1 + 8
        let descriptionOffset: UInt32 = 8 + 2 + 12 * 4 + 4  // first value after IFD0's 4 entries
        #expect(
            rewriteError(patched(valid, at: thumbnailOffsetField, descriptionOffset))?.code == .overlappingStructures)
    }

    @Test func valueOutsideThePayloadDoesNotBlockTheRewrite() throws {
        var payload = sample().payload
        let make = try #require(payload.ifd0EntryIndex(of: 0x010F, bigEndian: false))
        payload.replaceSubrange(make + 4..<make + 8, with: [0xFF, 0xFF, 0xFF, 0x7F])  // count 2^31 - 1
        let rewritten = try OutputExif.rewrite(app1Payload: payload, pixelWidth: 10, pixelHeight: 10)
        let document = try ExifDocument(app1Payload: rewritten)
        #expect(document.thumbnail == nil)
        #expect(document.value(.orientation, in: .zero) == .shorts([1]))
        #expect(!rewritten.contains([0xFF, 0xD8, 1, 2, 3, 4]), "thumbnail bytes erased")
    }

    @Test func unreachableThumbnailIsJustUnlinked() throws {
        let valid = sample().payload
        let broken = patched(valid, at: ifd1PointerIndex(valid), 0xFFFF_0000)
        let rewritten = try OutputExif.rewrite(app1Payload: broken, pixelWidth: 10, pixelHeight: 10)
        let document = try ExifDocument(app1Payload: rewritten)
        #expect(document.thumbnail == nil)
        #expect(document.value(.orientation, in: .zero) == .shorts([1]))
    }

    @Test func randomBytes() {
        var random = SeededRandom(seed: 0xDA4C_400D)
        let validHeaders: [[UInt8]] = [
            Array("Exif".utf8) + [0, 0] + Array("II".utf8) + [42, 0, 8, 0, 0, 0],
            Array("Exif".utf8) + [0, 0] + Array("MM".utf8) + [0, 42, 0, 0, 0, 8],
        ]
        for round in 0..<3000 {
            let body = (0..<Int.random(in: 0...400, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            let payload = round.isMultiple(of: 3) ? body : validHeaders[round % 2] + body
            if let rewritten = try? OutputExif.rewrite(app1Payload: payload, pixelWidth: 100, pixelHeight: 100) {
                #expect(rewritten.count == payload.count)
            }
            let result = MetadataReader.read(app1Payload: payload)
            #expect((1...8).contains(result.metadata.orientation))
        }
    }

    /// Real payloads with a few bytes flipped in their directories: whatever libexif and the
    /// walker make of them, neither may crash, and a successful rewrite is upright.
    @Test(arguments: ["gps/DSCN0010.jpg", "hdr/iphone_hdr_NO.jpg", "Canon_40D.jpg"])
    func mutatedRealPayloads(fixture: String) throws {
        let original = try exifPayload(fixture)
        var random = SeededRandom(seed: UInt64(truncatingIfNeeded: fixture.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
        for _ in 0..<1500 {
            var payload = original
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let index = Int.random(in: 6..<min(payload.count, 1200), using: &random)
                payload[index] = UInt8.random(in: 0...255, using: &random)
            }
            _ = MetadataReader.read(app1Payload: payload)
            guard let rewritten = try? OutputExif.rewrite(app1Payload: payload, pixelWidth: 64, pixelHeight: 48) else {
                continue
            }
            #expect(rewritten.count == payload.count)
            if let document = try? ExifDocument(app1Payload: rewritten),
                let orientation = document.value(.orientation, in: .zero)
            {
                #expect(orientation == .shorts([1]))
            }
        }
    }
}
