import ByteStreams
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

/// What is harmless is tolerated with a warning, what is damaged is refused, and the decision
/// comes from what the decoder did: copies of real photos cut and spoiled at test time, in
/// baseline and progressive form, and real files that arrived that way.
@Suite struct DamagedJPEGTests {
    struct Decoded {
        var pixels: [UInt8]
        var warnings: [JPEGWarning]
    }

    /// Decodes every row, a strip at a time, through a source that hands out uneven chunks.
    func decode(_ bytes: [UInt8], name: String = "originals/ab/cd.jpg", rows: Int? = nil) throws -> Decoded {
        let decoder = try JPEGDecoder(source: ChunkedSource(bytes, name: name, maxChunk: 5000))
        let size = try decoder.start()
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 3)
        var row = 0
        try pixels.withUnsafeMutableBytes { buffer in
            while row < min(rows ?? size.height, size.height) {
                let strip = UnsafeMutableRawBufferPointer(rebasing: buffer[(row * size.width * 3)...])
                row += try decoder.readRows(into: strip, rowStride: size.width * 3, rowCount: 16)
            }
        }
        try decoder.finish()
        return Decoded(pixels: pixels, warnings: decoder.warnings)
    }

    func expectDamage(
        _ bytes: [UInt8], _ damage: JPEGError.Damage, at offset: Int? = nil, rows: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: JPEGError.self, sourceLocation: sourceLocation) {
            _ = try decode(bytes, rows: rows)
        }
        #expect(
            error?.code == .damaged && error?.damage == damage && error?.object == "originals/ab/cd.jpg",
            "\(String(describing: error))", sourceLocation: sourceLocation)
        if let offset { #expect(error?.byteOffset == offset, sourceLocation: sourceLocation) }
    }

    static func baseline() throws -> [UInt8] { try Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg")) }

    @Test func aFileWithoutItsEOIMarkerDecodesToTheSamePixelsWithAWarning() throws {
        for intact in [try Self.baseline(), try DamagedJPEGs.progressiveCopy(of: try Self.baseline())] {
            let reference = try decode(intact)
            #expect(reference.warnings.isEmpty)
            let cut = DamagedJPEGs.withoutEOI(intact)
            let decoded = try decode(cut)
            #expect(decoded.warnings == [.missingEOI(fileLength: cut.count)])
            #expect(decoded.pixels == reference.pixels, "every row comes from the file's own data")
        }
    }

    @Test func bytesAfterTheEOIMarkerAreCountedAndIgnored() throws {
        for intact in [try Self.baseline(), try DamagedJPEGs.progressiveCopy(of: try Self.baseline())] {
            let reference = try decode(intact)
            // More than the decoder's 16 KiB buffer: counting reads the stream to its end.
            let decoded = try decode(DamagedJPEGs.withTrailingBytes(intact, count: 40_000))
            #expect(decoded.warnings == [.trailingBytes(count: 40_000, eoiEnd: intact.count)])
            #expect(
                decoded.warnings.first?.code == "jpeg.trailing_bytes" && decoded.warnings.first?.byteCount == 40_000)
            #expect(decoded.pixels == reference.pixels)
        }
    }

    @Test func aCutInsideTheScanDataIsRefused() throws {
        let intact = try Self.baseline()
        let cut = DamagedJPEGs.cutInScan(intact)
        expectDamage(cut, .cutInScanData, at: cut.count)
        // Also when only the top rows are read: finish decodes the rest, where the cut is.
        expectDamage(cut, .cutInScanData, at: cut.count, rows: 16)
        // Cut a few bytes short of the end of the data: the last MCUs are missing.
        let nearEnd = Array(intact[..<(DamagedJPEGs.scans(in: intact).last!.upperBound - 8)])
        expectDamage(nearEnd, .cutInScanData, at: nearEnd.count)
    }

    @Test func corruptScanDataIsRefusedEvenWhenOnlyTheTopRowsAreRead() throws {
        let corrupt = DamagedJPEGs.withCorruptScanData(try Self.baseline())
        expectDamage(corrupt, .corruptScanData)
        expectDamage(corrupt, .corruptScanData, rows: 16)
    }

    /// libjpeg's own skip to the bottom would mark the input finished without reading it: the
    /// decoder stops one row short, and finish reads the rest.
    @Test func skippingToTheBottomStillReadsTheRestOfTheFile() throws {
        let intact = try Self.baseline()
        func skipAllAndFinish(_ bytes: [UInt8]) throws -> [JPEGWarning] {
            let decoder = try JPEGDecoder(source: ChunkedSource(bytes, name: "originals/ab/cd.jpg", maxChunk: 5000))
            let size = try decoder.start()
            try decoder.skipRows(size.height)
            #expect(decoder.nextRow == size.height - 1)
            try decoder.finish()
            return decoder.warnings
        }
        #expect(
            try skipAllAndFinish(DamagedJPEGs.withTrailingBytes(intact, count: 10)) == [
                .trailingBytes(count: 10, eoiEnd: intact.count)
            ])
        let error = #expect(throws: JPEGError.self) { _ = try skipAllAndFinish(DamagedJPEGs.cutInScan(intact)) }
        #expect(error?.damage == .cutInScanData)
    }

    /// Inside the EXIF segment and inside the Huffman tables.
    @Test(arguments: [7_973, 11_600])
    func aCutInsideTheHeaderIsRefused(length: Int) throws {
        let cut = Array(try Self.baseline()[..<length])
        let error = #expect(throws: JPEGError.self) {
            _ = try JPEGDecoder(source: ChunkedSource(cut, name: "originals/ab/cd.jpg"))
        }
        #expect(
            error?.code == .damaged && error?.damage == .cutInMarkers && error?.byteOffset == length,
            "\(String(describing: error))")
    }

    /// Complete means every scan: a progressive file that stops between scans lacks the
    /// refinement of its coefficients, though no scan it has is cut.
    @Test func aProgressiveFileIsCompleteOnlyWithAllItsScans() throws {
        let progressive = try DamagedJPEGs.progressiveCopy(of: try Self.baseline())
        let scans = DamagedJPEGs.scans(in: progressive)
        #expect(scans.count == 10)
        for scan in [0, 4, scans.count - 2] {
            let cut = DamagedJPEGs.cutAfterScan(progressive, scan: scan)
            // Refused at start, which reads a progressive file whole, before any pixel is worked on.
            let error = #expect(throws: JPEGError.self) {
                let decoder = try JPEGDecoder(source: ChunkedSource(cut, name: "originals/ab/cd.jpg", maxChunk: 5000))
                _ = try decoder.start()
            }
            #expect(
                error?.damage == .cutBetweenScans && error?.byteOffset == cut.count,
                "scan \(scan): \(String(describing: error))")
            #expect(error?.message.contains("refinement of") == true)
        }
        // After the last scan only the EOI marker is missing.
        let whole = DamagedJPEGs.cutAfterScan(progressive, scan: scans.count - 1)
        #expect(try decode(whole).warnings == [.missingEOI(fileLength: progressive.count - 2)])
        // Cut inside a scan: the first (DC), a middle one, the last.
        for scan in [0, 5, scans.count - 1] {
            let cut = DamagedJPEGs.cutInScan(progressive, scan: scan)
            expectDamage(cut, .cutInScanData, at: cut.count)
        }
    }

    /// A real phone photo (Nokia 8.3 5G) whose file stops at a 512-byte boundary: without its
    /// EOI marker, and also without the scan data of the right half of its last MCU row, which
    /// libjpeg would fill with grey (djpeg shows "Premature end of JPEG file" first, and the
    /// "premature end of data segment" after it only at -verbose -verbose -verbose).
    @Test func theRealPhoneFileThatStopsShortIsCutInsideItsScanData() throws {
        let path = Fixtures.exifSample("mobile/HMD_Nokia_8.3_5G.jpg").path
        let decoder = try JPEGDecoder(source: FileSource(path: path))
        let size = try decoder.start()
        #expect(size.width == 4608 && size.height == 1976)
        let error = #expect(throws: JPEGError.self) { try decoder.finish() }
        #expect(error?.damage == .cutInScanData && error?.byteOffset == 2_184_704 && error?.object == path)
    }

    @Test func realFilesWithATrailerOrCorruptData() throws {
        let olympus = try decode(Fixtures.bytes(of: Fixtures.exifSample("exif-org/olympus-d320l.jpg")))
        #expect(olympus.warnings == [.trailingBytes(count: 1, eoiEnd: 61_263)])
        expectDamage(try Fixtures.bytes(of: Fixtures.exifSample("corrupted.jpg")), .corruptScanData)
    }
}
