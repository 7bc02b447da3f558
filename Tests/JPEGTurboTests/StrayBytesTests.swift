import ByteStreams
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

/// Junk where a marker should begin, and ICC profiles whose chunks do not fit together: djpeg
/// and vips render such files, and so does darkroom, with a warning, where no pixel depends on
/// the bytes; junk inside or right after a scan's data is still damage. Copies of a real photo
/// spoilt at test time.
@Suite struct StrayBytesTests {
    struct Decoded {
        var pixels: [UInt8]
        var warnings: [JPEGWarning]
        var iccProfile: [UInt8]?
    }

    func decode(_ bytes: [UInt8]) throws -> Decoded {
        let (pixels, decoder) = try decodeWhole(ChunkedSource(bytes, name: "originals/ab/cd.jpg", maxChunk: 5000))
        return Decoded(pixels: pixels, warnings: decoder.warnings, iccProfile: decoder.header.iccProfile)
    }

    func expectCorruptScanData(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: JPEGError.self, sourceLocation: sourceLocation) { _ = try decode(bytes) }
        #expect(
            error?.code == .damaged && error?.damage == .corruptScanData, "\(String(describing: error))",
            sourceLocation: sourceLocation)
    }

    static func baseline() throws -> [UInt8] { try Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg")) }

    /// Before the first APP1 (right after the SOI), the DQT, the DHT, and a COM segment.
    @Test(arguments: [0xE1, 0xDB, 0xC4, 0xFE] as [UInt8])
    func junkBetweenHeaderMarkersIsSkippedWithAWarning(marker: UInt8) throws {
        var intact = try Self.baseline()
        if marker == 0xFE {
            let dqt = try #require(DamagedJPEGs.headerMarkers(in: intact).first { $0.marker == 0xDB }).offset
            intact = DamagedJPEGs.withSegment(0xFE, payload: Array("a comment".utf8), at: dqt, in: intact)
        }
        let reference = try decode(intact)
        #expect(reference.warnings.isEmpty)
        let spoilt = DamagedJPEGs.withJunk(DamagedJPEGs.junk(23), beforeHeaderMarker: marker, in: intact)
        let markerOffset =
            try #require(DamagedJPEGs.headerMarkers(in: intact).first { $0.marker == marker }).offset + 23
        let decoded = try decode(spoilt)
        #expect(
            decoded.warnings == [.extraneousBytes(count: 23, marker: Int(marker), markerOffset: markerOffset, runs: 1)])
        #expect(decoded.pixels == reference.pixels, "no pixel depends on the junk")
        let warning = try #require(decoded.warnings.first)
        #expect(
            warning.code == "jpeg.extraneous_bytes" && warning.byteCount == 23 && warning.byteOffset == markerOffset)
        #expect(warning.message.contains(String(format: "before marker 0x%02X at byte \(markerOffset)", marker)))
    }

    @Test func junkInSeveralPlacesIsSummed() throws {
        let intact = try Self.baseline()
        // The later place first: the marker walk stops at junk.
        let once = DamagedJPEGs.withJunk(DamagedJPEGs.junk(7), beforeHeaderMarker: 0xC4, in: intact)
        let dqt = try #require(DamagedJPEGs.headerMarkers(in: intact).first { $0.marker == 0xDB }).offset + 5
        let twice = DamagedJPEGs.withJunk(DamagedJPEGs.junk(5), beforeHeaderMarker: 0xDB, in: once)
        let decoded = try decode(twice)
        #expect(decoded.warnings == [.extraneousBytes(count: 12, marker: 0xDB, markerOffset: dqt, runs: 2)])
        #expect(decoded.pixels == (try decode(intact)).pixels)
    }

    /// After the scans, a marker segment read whole (here a COM), then junk, then the EOI: the
    /// scan's data ended at a marker, so nothing the pixels need lies in the junk.
    @Test func junkBeforeTheEOIAfterAMarkerSegmentIsSkippedWithAWarning() throws {
        for intact in [try Self.baseline(), try DamagedJPEGs.progressiveCopy(of: try Self.baseline())] {
            let end = intact.count - 2
            let withComment = DamagedJPEGs.withSegment(0xFE, payload: Array("trailer".utf8), at: end, in: intact)
            var spoilt = withComment
            spoilt.insert(contentsOf: DamagedJPEGs.junk(40), at: spoilt.count - 2)
            let decoded = try decode(spoilt)
            #expect(
                decoded.warnings == [.extraneousBytes(count: 40, marker: 0xD9, markerOffset: spoilt.count - 2, runs: 1)]
            )
            #expect(decoded.pixels == (try decode(intact)).pixels)
        }
    }

    /// Junk right after a scan's data leaves the same trace as junk inside it (the decoder stops
    /// after the last block, short of the marker): refused, before the EOI and between scans.
    @Test func junkRightAfterAScansDataIsRefused() throws {
        let intact = try Self.baseline()
        expectCorruptScanData(DamagedJPEGs.withJunk(DamagedJPEGs.junk(40), afterScan: 0, in: intact))
        // Behind a restart marker the marker reader passes over, the junk is another restart
        // interval's data, which no block needed (as in image-rs/jpeg-decoder's
        // extraneous-bytes-after-sos.jpg).
        expectCorruptScanData(DamagedJPEGs.withJunk([0xFF, 0xD0] + DamagedJPEGs.junk(40), afterScan: 0, in: intact))
        let progressive = try DamagedJPEGs.progressiveCopy(of: intact)
        for scan in [0, 4, DamagedJPEGs.scans(in: progressive).count - 1] {
            expectCorruptScanData(DamagedJPEGs.withJunk(DamagedJPEGs.junk(40), afterScan: scan, in: progressive))
        }
    }

    @Test func junkInsideScanDataIsRefused() throws {
        let intact = try Self.baseline()
        for count in [1, 40, 3000] {
            expectCorruptScanData(DamagedJPEGs.withJunk(DamagedJPEGs.junk(count), insideScan: 0, in: intact))
        }
        let progressive = try DamagedJPEGs.progressiveCopy(of: intact)
        expectCorruptScanData(DamagedJPEGs.withJunk(DamagedJPEGs.junk(40), insideScan: 3, in: progressive))
    }

    /// A real file with restart markers every 504 MCUs: junk where one was due is in the scan.
    @Test func junkBeforeARestartMarkerIsRefused() throws {
        let intact = try Fixtures.bytes(of: Fixtures.exifSample("tests/67-0_length_string.jpg"))
        #expect(try decode(intact).warnings.isEmpty)
        let restarts = DamagedJPEGs.restartMarkers(in: intact)
        #expect(restarts.count > 2)
        var spoilt = intact
        spoilt.insert(contentsOf: DamagedJPEGs.junk(9), at: restarts[1])
        let error = #expect(throws: JPEGError.self) { _ = try decode(spoilt) }
        #expect(
            error?.damage == .corruptScanData && error?.byteOffset == restarts[1] + 9, "\(String(describing: error))")
        #expect(error?.message.hasPrefix("9 bytes of scan data were left over before restart marker 0xD") == true)
    }

    // MARK: ICC chunks

    static func profile() throws -> [UInt8] {
        try Fixtures.bytes(of: Fixtures.root.appendingPathComponent("icc/apple-display-p3.icc"))
    }

    @Test func aProfileInThreeChunksIsAssembled() throws {
        let intact = try Self.baseline()
        let profile = try Self.profile()
        let tagged = DamagedJPEGs.withICCChunks(profile, numbering: [(1, 3), (2, 3), (3, 3)], in: intact)
        let decoded = try decode(tagged)
        #expect(decoded.iccProfile == profile && decoded.warnings.isEmpty)
        #expect(decoded.pixels == (try decode(intact)).pixels)
        // After the SOF (before the first scan) libjpeg still keeps the chunks.
        let sos = try #require(DamagedJPEGs.headerMarkers(in: intact).last).offset
        let late = DamagedJPEGs.withICCChunks(profile, numbering: [(1, 2), (2, 2)], at: sos, in: intact)
        #expect(try decode(late).iccProfile == profile)
    }

    static let badNumberings: [[(sequence: Int, count: Int)]] = [
        [(1, 3), (2, 2), (3, 3)],  // a wrong count
        [(1, 3), (1, 3), (3, 3)],  // a repeated sequence number
        [(0, 2), (1, 2), (2, 2)],  // sequence number zero
        [(1, 3), (3, 3)],  // a missing chunk
        [(1, 2), (3, 2)],  // a sequence number past the count
    ]

    @Test(arguments: 0..<5)
    func chunksThatDoNotFitTogetherLeaveTheImageUntaggedWithAWarning(numbering: Int) throws {
        let intact = try Self.baseline()
        let chunks = Self.badNumberings[numbering]
        let spoilt = DamagedJPEGs.withICCChunks(try Self.profile(), numbering: chunks, in: intact)
        let decoded = try decode(spoilt)
        let expected = chunks.map { JPEGWarning.ICCChunk(sequence: $0.sequence, count: $0.count) }
        #expect(decoded.iccProfile == nil)
        #expect(decoded.warnings == [.iccUnreadable(chunks: expected)])
        #expect(decoded.pixels == (try decode(intact)).pixels)
        let warning = try #require(decoded.warnings.first)
        #expect(warning.code == "icc.unreadable" && warning.byteOffset == nil)
        #expect(warning.message.contains("carries no ICC profile"))
        // Known from the header on, before any row is decoded.
        let decoder = try JPEGDecoder(source: ChunkedSource(spoilt, name: "originals/ab/cd.jpg"))
        #expect(decoder.warnings.map(\.code) == ["icc.unreadable"])
    }

    // MARK: Real files (Tests/Fixtures/tolerated)

    static func tolerated(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes(of: Fixtures.root.appendingPathComponent("tolerated/\(name)"))
    }

    /// The file without its APP2 segments: what its pixels are without any profile.
    static func withoutAPP2(_ bytes: [UInt8]) -> [UInt8] {
        var kept = bytes
        for segment in DamagedJPEGs.headerMarkers(in: bytes).reversed() where segment.marker == 0xE2 {
            let length = Int(bytes[segment.offset + 2]) << 8 | Int(bytes[segment.offset + 3])
            kept.removeSubrange(segment.offset..<(segment.offset + 2 + length))
        }
        return kept
    }

    @Test(arguments: [
        "icc_chunk_count_mismatch.jpeg", "icc_chunk_double_seq_no.jpeg", "icc_chunk_seq_no_0.jpeg",
        "icc_missing_chunk.jpeg", "icc-after-SOF.jpg",
    ])
    func realFilesWithICCChunksThatDoNotFitTogether(_ name: String) throws {
        let bytes = try Self.tolerated(name)
        let decoded = try decode(bytes)
        #expect(decoded.warnings.map(\.code) == ["icc.unreadable"], "\(decoded.warnings)")
        #expect(decoded.iccProfile == nil)
        let clean = Self.withoutAPP2(bytes)
        #expect(clean.count < bytes.count)
        #expect(decoded.pixels == (try decode(clean)).pixels)
    }

    @Test func aRealFileWithChunksOutOfOrderIsAssembled() throws {
        let decoded = try decode(try Self.tolerated("icc_chunk_order.jpeg"))
        #expect(decoded.warnings.isEmpty && decoded.iccProfile?.isEmpty == false)
    }

    /// Photoshop wrote an APP13 segment's length 16 short: its last 16 bytes lie before the APP1.
    @Test func aRealFileWithASegmentLengthShortOfItsData() throws {
        let broken = try Self.tolerated("photoshop-200dpi-broken.jpg")
        let decoded = try decode(broken)
        #expect(decoded.warnings.map(\.code) == ["jpeg.extraneous_bytes"])
        guard case .extraneousBytes(16, 0xE1, let offset, 1)? = decoded.warnings.first else {
            Issue.record("\(decoded.warnings)")
            return
        }
        #expect(broken[offset] == 0xFF && broken[offset + 1] == 0xE1)
        #expect(decoded.pixels == (try decode(try Self.tolerated("photoshop-200dpi.jpg"))).pixels)
    }
}
