/// The marker segments of a JPEG before its first scan, walked without decoding: where each
/// starts and where its payload lies. Enough to find the APP1 and APP2 segments a gain map is
/// described by, in the primary image and in the gain map's own JPEG.
public struct JPEGSegment: Sendable, Equatable {
    /// The marker code (0xE1 for APP1, 0xE2 for APP2).
    public var marker: UInt8
    /// Where the segment's 0xFF lies.
    public var offset: Int
    /// Its payload (after the length field).
    public var payload: Range<Int>
}

public enum JPEGSegments {
    /// More segments before the first scan than any real file has.
    public static let maxSegments = 4096

    /// The segments of the JPEG that starts at `start` in `bytes`, up to its first scan (SOS) or
    /// its end (EOI).
    public static func read(_ bytes: [UInt8], from start: Int = 0) throws(GainMapError) -> [JPEGSegment] {
        guard start >= 0, start <= bytes.count - 2, bytes[start] == 0xFF, bytes[start + 1] == 0xD8 else {
            throw GainMapError(.malformed, .jpeg, "no JPEG starts here (no SOI marker)", at: start)
        }
        var segments: [JPEGSegment] = []
        var index = start + 2
        while segments.count < maxSegments {
            guard index < bytes.count else {
                throw GainMapError(.cut, .jpeg, "the markers end before a scan", at: index)
            }
            guard bytes[index] == 0xFF else {
                throw GainMapError(.malformed, .jpeg, "byte \(bytes[index]) where a marker should begin", at: index)
            }
            let markerStart = index
            while index < bytes.count, bytes[index] == 0xFF { index += 1 }
            guard index < bytes.count else { throw GainMapError(.cut, .jpeg, "the file ends in fill bytes", at: index) }
            let marker = bytes[index]
            index += 1
            if marker == 0xDA || marker == 0xD9 { return segments }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { continue }
            let length = Int(try ByteReader.u16(bytes, at: index, bigEndian: true, structure: .jpeg))
            guard length >= 2 else {
                throw GainMapError(.malformed, .jpeg, "a marker segment of length \(length)", at: index)
            }
            guard index + length <= bytes.count else {
                throw GainMapError(.cut, .jpeg, "a segment of \(length) bytes runs past the end", at: markerStart)
            }
            segments.append(JPEGSegment(marker: marker, offset: markerStart, payload: index + 2..<index + length))
            index += length
        }
        throw GainMapError(.tooLarge, .jpeg, "more than \(maxSegments) marker segments before the first scan")
    }

    /// The payload of the first segment with `marker` whose payload starts with `signature`.
    static func first(_ marker: UInt8, startingWith signature: [UInt8], in segments: [JPEGSegment], of bytes: [UInt8])
        -> JPEGSegment?
    {
        segments.first { $0.marker == marker && bytes[$0.payload].starts(with: signature) }
    }
}
