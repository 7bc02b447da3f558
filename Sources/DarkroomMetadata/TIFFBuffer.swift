import GainMaps

/// A copy of an EXIF APP1 payload with bounds-checked, byte-order-aware access to its TIFF
/// part. Offsets are relative to the TIFF header, as every offset inside EXIF is.
struct TIFFBuffer {
    /// `Exif\0\0` precedes the TIFF header in the APP1 payload.
    static let tiffStart = 6
    static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]

    private(set) var payload: [UInt8]
    let isBigEndian: Bool
    /// Offset of IFD0, read from the header.
    private(set) var firstIFDOffset = 0

    var tiffLength: Int { payload.count - TIFFBuffer.tiffStart }

    init(payload: [UInt8]) throws(ExifRewriteError) {
        self.payload = payload
        let tiff = payload.dropFirst(TIFFBuffer.tiffStart)
        switch (tiff.first, tiff.dropFirst().first) {
        case (UInt8(ascii: "I"), UInt8(ascii: "I")): isBigEndian = false
        case (UInt8(ascii: "M"), UInt8(ascii: "M")): isBigEndian = true
        default:
            throw .structure(.invalidTIFFHeader, "The TIFF header starts with neither \"II\" nor \"MM\"", [:])
        }
        guard tiffLength >= 8, try uint16(at: 2) == 42 else {
            throw .structure(
                .invalidTIFFHeader, "The TIFF header is truncated or lacks the magic number 42",
                ["tiffBytes": String(max(0, tiffLength))])
        }
        firstIFDOffset = Int(try uint32(at: 4))
    }

    func uint16(at offset: Int) throws(ExifRewriteError) -> UInt16 {
        let start = try checkedStart(offset, length: 2)
        let (a, b) = (UInt16(payload[start]), UInt16(payload[start + 1]))
        return isBigEndian ? a << 8 | b : b << 8 | a
    }

    func uint32(at offset: Int) throws(ExifRewriteError) -> UInt32 {
        let first = UInt32(try uint16(at: offset))
        let second = UInt32(try uint16(at: offset + 2))
        return isBigEndian ? first << 16 | second : second << 16 | first
    }

    func bytes(at offset: Int, length: Int) throws(ExifRewriteError) -> [UInt8] {
        let start = try checkedStart(offset, length: length)
        return Array(payload[start..<start + length])
    }

    mutating func setUInt16(_ value: UInt16, at offset: Int) throws(ExifRewriteError) {
        let start = try checkedStart(offset, length: 2)
        let (high, low) = (UInt8(value >> 8), UInt8(truncatingIfNeeded: value))
        (payload[start], payload[start + 1]) = isBigEndian ? (high, low) : (low, high)
    }

    mutating func setUInt32(_ value: UInt32, at offset: Int) throws(ExifRewriteError) {
        let (high, low) = (UInt16(value >> 16), UInt16(truncatingIfNeeded: value))
        try setUInt16(isBigEndian ? high : low, at: offset)
        try setUInt16(isBigEndian ? low : high, at: offset + 2)
    }

    mutating func zero(_ range: Range<Int>) throws(ExifRewriteError) {
        let start = try checkedStart(range.lowerBound, length: range.count)
        payload.replaceSubrange(start..<start + range.count, with: repeatElement(0, count: range.count))
    }

    /// The entries of the directory at `offset` (`TIFFEntries`, the one reader), with offsets
    /// relative to the TIFF header.
    func entries(at offset: Int, partial: Bool) throws(TIFFEntries.Problem) -> [TIFFEntry] {
        guard offset >= 0 else { throw .countOutside }
        return try TIFFEntries.read(
            payload, at: TIFFBuffer.tiffStart + offset, origin: TIFFBuffer.tiffStart, bigEndian: isBigEndian,
            partial: partial
        ).entries
    }

    /// Whether `count` bytes at `offset` lie inside the TIFF data.
    func contains(_ offset: Int, length count: Int) -> Bool {
        offset >= 0 && count >= 0 && offset <= tiffLength - count
    }

    private func checkedStart(_ offset: Int, length: Int) throws(ExifRewriteError) -> Int {
        guard contains(offset, length: length) else {
            throw .structure(
                .outOfBounds, "\(length) bytes at offset \(offset) lie past the end of the EXIF data",
                [
                    "offset": String(offset), "length": String(length), "tiffBytes": String(tiffLength),
                ])
        }
        return TIFFBuffer.tiffStart + offset
    }
}
