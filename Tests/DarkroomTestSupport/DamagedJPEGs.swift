import ByteStreams
import JPEGTurbo

/// Irregular and damaged copies of an intact JPEG, made at test time the ways real files go
/// wrong: cut short (just before the EOI marker, between scans, inside a scan), with bytes
/// after the EOI marker, with corrupt scan data. Cuts are placed by walking the markers, so
/// they land where they say whatever the file.
public enum DamagedJPEGs {
    /// The entropy-coded data of each scan, in file order.
    public static func scans(in bytes: [UInt8]) -> [Range<Int>] {
        var scans: [Range<Int>] = []
        var index = 2  // after SOI
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if marker == 0xFF {
                index += 1
                continue
            }  // fill byte
            if marker == 0xD9 { break }  // EOI
            let segmentEnd = index + 2 + (Int(bytes[index + 2]) << 8 | Int(bytes[index + 3]))
            guard marker == 0xDA else {
                index = segmentEnd
                continue
            }
            // Scan data runs to the first marker that is neither a stuffed 0xFF nor RSTn.
            var end = segmentEnd
            while end + 1 < bytes.count,
                !(bytes[end] == 0xFF && bytes[end + 1] != 0 && !(0xD0...0xD7).contains(bytes[end + 1]))
            {
                end += 1
            }
            scans.append(segmentEnd..<end)
            index = end
        }
        return scans
    }

    public static func withoutEOI(_ bytes: [UInt8]) -> [UInt8] {
        precondition(bytes.suffix(2) == [0xFF, 0xD9], "not a JPEG that ends with its EOI marker")
        return Array(bytes.dropLast(2))
    }

    public static func withTrailingBytes(_ bytes: [UInt8], count: Int) -> [UInt8] {
        bytes + (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    }

    /// Cut half way through the data of scan `scan` (default: the last).
    public static func cutInScan(_ bytes: [UInt8], scan: Int? = nil) -> [UInt8] {
        let all = scans(in: bytes)
        let data = all[scan ?? all.count - 1]
        return Array(bytes[..<(data.lowerBound + data.count / 2)])
    }

    /// Cut right after the data of scan `scan`: the scan is whole, what follows it is gone.
    public static func cutAfterScan(_ bytes: [UInt8], scan: Int) -> [UInt8] {
        Array(bytes[..<scans(in: bytes)[scan].upperBound])
    }

    /// The middle of the last scan's data overwritten with stuffed 0xFF bytes: a run of 1 bits,
    /// which no Huffman code is, so the scan cannot decode as written.
    public static func withCorruptScanData(_ bytes: [UInt8], length: Int = 256) -> [UInt8] {
        let data = scans(in: bytes).last!
        var damaged = bytes
        let start = data.lowerBound + data.count / 2
        for offset in stride(from: 0, to: length, by: 2) {
            damaged[start + offset] = 0xFF
            damaged[start + offset + 1] = 0x00
        }
        return damaged
    }

    /// The same picture as a progressive JPEG (libjpeg's standard scan script: ten scans).
    public static func progressiveCopy(of bytes: [UInt8]) throws -> [UInt8] {
        let decoder = try JPEGDecoder(source: ChunkedSource(bytes, maxChunk: 1 << 16))
        let size = try decoder.start()
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 3)
        _ = try pixels.withUnsafeMutableBytes {
            try decoder.readRows(into: $0, rowStride: size.width * 3, rowCount: size.height)
        }
        try decoder.finish()
        let sink = MemoryUpload()
        let encoder = try JPEGEncoder(sink: sink)
        try encoder.start(
            width: size.width, height: size.height, encoding: JPEGEncoding(quality: 90, progressive: true))
        try pixels.withUnsafeBytes { try encoder.writeRows(from: $0, rowStride: size.width * 3, rowCount: size.height) }
        try encoder.finish()
        return sink.bytes
    }

    // MARK: Stray bytes and ICC chunks

    /// Bytes no marker search can mistake for a marker (no 0xFF), `count` of them.
    public static func junk(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(($0 &* 37 &+ 11) % 255) }
    }

    /// Where each marker segment before the first scan's data starts (its 0xFF), with its code;
    /// the SOS is the last.
    public static func headerMarkers(in bytes: [UInt8]) -> [(marker: UInt8, offset: Int)] {
        var markers: [(marker: UInt8, offset: Int)] = []
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            markers.append((marker, index))
            if marker == 0xDA { break }
            index += 2 + (Int(bytes[index + 2]) << 8 | Int(bytes[index + 3]))
        }
        return markers
    }

    /// `junk` inserted just before the first header marker `marker` (0xDB: DQT, 0xC4: DHT, ...).
    public static func withJunk(_ junk: [UInt8], beforeHeaderMarker marker: UInt8, in bytes: [UInt8]) -> [UInt8] {
        let offset = headerMarkers(in: bytes).first { $0.marker == marker }!.offset
        var spoilt = bytes
        spoilt.insert(contentsOf: junk, at: offset)
        return spoilt
    }

    /// A marker segment inserted at `offset`.
    public static func withSegment(_ marker: UInt8, payload: [UInt8], at offset: Int, in bytes: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        var spoilt = bytes
        spoilt.insert(contentsOf: [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: offset)
        return spoilt
    }

    /// `junk` inserted right after the entropy-coded data of scan `scan`, before the marker that follows it.
    public static func withJunk(_ junk: [UInt8], afterScan scan: Int, in bytes: [UInt8]) -> [UInt8] {
        var spoilt = bytes
        spoilt.insert(contentsOf: junk, at: scans(in: bytes)[scan].upperBound)
        return spoilt
    }

    /// `junk` inserted in the middle of scan `scan`'s entropy-coded data (not between a 0xFF and its stuffed 0x00).
    public static func withJunk(_ junk: [UInt8], insideScan scan: Int, in bytes: [UInt8]) -> [UInt8] {
        let data = scans(in: bytes)[scan]
        var offset = data.lowerBound + data.count / 2
        while bytes[offset - 1] == 0xFF { offset += 1 }
        var spoilt = bytes
        spoilt.insert(contentsOf: junk, at: offset)
        return spoilt
    }

    /// The offsets of the restart markers (RSTn) in scan `scan`'s data.
    public static func restartMarkers(in bytes: [UInt8], scan: Int = 0) -> [Int] {
        let data = scans(in: bytes)[scan]
        return data.dropLast().filter { bytes[$0] == 0xFF && (0xD0...0xD7).contains(bytes[$0 + 1]) }
    }

    /// The ICC profile `profile` split into APP2 `ICC_PROFILE` chunks numbered as `numbering`
    /// says (sequence, count) — one chunk per pair, the profile cut into that many equal parts —
    /// inserted at `offset` (default: before the first DQT).
    public static func withICCChunks(
        _ profile: [UInt8], numbering: [(sequence: Int, count: Int)], at offset: Int? = nil, in bytes: [UInt8]
    ) -> [UInt8] {
        let part = (profile.count + numbering.count - 1) / numbering.count
        var segments: [UInt8] = []
        for (index, number) in numbering.enumerated() {
            let chunk = profile[min(index * part, profile.count)..<min((index + 1) * part, profile.count)]
            let payload = Array("ICC_PROFILE".utf8) + [0, UInt8(number.sequence), UInt8(number.count)] + chunk
            segments += withSegment(0xE2, payload: payload, at: 0, in: [])
        }
        var spoilt = bytes
        spoilt.insert(
            contentsOf: segments, at: offset ?? headerMarkers(in: bytes).first { $0.marker == 0xDB }!.offset)
        return spoilt
    }
}
