#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The headroom of Apple's HDR gain map, and the metadata it stands for. Apple's gain map has no
/// min, max, gamma or offsets: the map holds how much of the headroom each pixel gets. Its
/// headroom comes from the gain map's XMP (`HDRGainMap:HDRGainMapHeadroom`, linear) or, in older
/// files, from MakerNote tags 33 and 48 by Apple's published formula ("Applying Apple HDR effect
/// to your photos").
public enum AppleHeadroom {
    /// MakerNote tags 33 (HDRHeadroom) and 48 (HDRGain), as the EXIF block stores them.
    public struct MakerNoteTags: Sendable, Equatable {
        public var headroom: Double
        public var gain: Double

        public init(headroom: Double, gain: Double) {
            self.headroom = headroom
            self.gain = gain
        }
    }

    /// Stops (log2 of the headroom) from the two MakerNote values, by Apple's formula.
    public static func stops(_ tags: MakerNoteTags) -> Double {
        if tags.headroom < 1 {
            return tags.gain <= 0.01 ? -20 * tags.gain + 1.8 : -0.101 * tags.gain + 1.601
        }
        return tags.gain <= 0.01 ? -70 * tags.gain + 3 : -0.303 * tags.gain + 2.303
    }

    /// The metadata an Apple map of `stops` stands for, as libavif reads these maps: the sample
    /// is the log2 gain in 0…`stops` (min 0, max `stops`), gamma 1, no offsets, a standard-range
    /// base. Apple describes the map as Rec. 709-encoded linear gain, which this log2 reading
    /// approximates; `.inconsistent` for stops that brighten nothing.
    public static func metadata(stops: Double) throws(GainMapError) -> GainMapMetadata {
        guard stops.isFinite, stops > 0 else {
            throw GainMapError(.inconsistent, .appleMakerNote, "a headroom of \(stops) stops brightens nothing")
        }
        return try GainMapMetadata(
            gainMapMin: .zero, gainMapMax: SIMD3(repeating: stops), gamma: .one, baseOffset: .zero,
            alternateOffset: .zero, baseHeadroom: 0, alternateHeadroom: stops
        ).validated(.appleMakerNote)
    }

    /// The metadata for a linear headroom (`HDRGainMapHeadroom`).
    public static func metadata(linearHeadroom: Double) throws(GainMapError) -> GainMapMetadata {
        try metadata(stops: log2(linearHeadroom))
    }

    static let makerNoteHeader: [UInt8] = Array("Apple iOS".utf8) + [0]

    /// Tags 33 and 48 of Apple's MakerNote in an EXIF block (a JPEG APP1 payload, `Exif\0\0`
    /// and TIFF); nil when the block has no Apple MakerNote or it lacks either tag.
    public static func makerNoteTags(exifPayload: [UInt8]) throws(GainMapError) -> MakerNoteTags? {
        let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]
        let start = exifPayload.starts(with: exifHeader) ? exifHeader.count : 0
        let tiff = Array(exifPayload[start...])
        guard tiff.count >= 8 else { throw GainMapError(.cut, .appleMakerNote, "no room for a TIFF header", at: 0) }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: throw GainMapError(.malformed, .appleMakerNote, "the EXIF block has no byte-order mark", at: 0)
        }
        let ifd0 = try TIFFDirectory(
            tiff, base: 0, offset: try ByteReader.u32(tiff, at: 4, bigEndian: bigEndian, structure: .appleMakerNote),
            bigEndian: bigEndian, structure: .appleMakerNote)
        guard let exifPointer = ifd0.entry(0x8769) else { return nil }
        let exifOffset = try ByteReader.u32(
            tiff, at: exifPointer.valueFieldOffset, bigEndian: bigEndian, structure: .appleMakerNote)
        let exifIFD = try TIFFDirectory(
            tiff, base: 0, offset: exifOffset, bigEndian: bigEndian, structure: .appleMakerNote)
        guard let makerNote = exifIFD.entry(0x927C) else { return nil }
        let range = try TIFFDirectory.valueRange(
            of: makerNote, in: tiff, base: 0, bigEndian: bigEndian, structure: .appleMakerNote)
        let note = Array(tiff[range])
        guard note.starts(with: makerNoteHeader) else { return nil }
        // "Apple iOS\0", a version (2 bytes), "MM": big-endian whatever the EXIF block is, its
        // offsets from the MakerNote's start.
        guard note.count >= 16 else { throw GainMapError(.cut, .appleMakerNote, "a MakerNote of \(note.count) bytes") }
        let ifd = try TIFFDirectory(note, base: 0, offset: 14, bigEndian: true, structure: .appleMakerNote)
        func value(_ tag: UInt16) throws(GainMapError) -> Double? {
            guard let entry = ifd.entry(tag), entry.count == 1 else { return nil }
            let range = try TIFFDirectory.valueRange(
                of: entry, in: note, base: 0, bigEndian: true, structure: .appleMakerNote)
            let first = try ByteReader.u32(note, at: range.lowerBound, bigEndian: true, structure: .appleMakerNote)
            switch entry.type {
            case 5, 10:
                let second = try ByteReader.u32(
                    note, at: range.lowerBound + 4, bigEndian: true, structure: .appleMakerNote)
                guard second != 0 else {
                    throw GainMapError(.inconsistent, .appleMakerNote, "tag \(tag) has a zero denominator")
                }
                return entry.type == 5
                    ? Double(first) / Double(second)
                    : Double(Int32(bitPattern: first)) / Double(Int32(bitPattern: second))
            case 11: return Double(Float(bitPattern: first))
            default: throw GainMapError(.malformed, .appleMakerNote, "tag \(tag) has type \(entry.type), not a number")
            }
        }
        guard let headroom = try value(33), let gain = try value(48) else { return nil }
        guard headroom.isFinite, gain.isFinite else {
            throw GainMapError(.inconsistent, .appleMakerNote, "tags 33 and 48 are \(headroom) and \(gain)")
        }
        return MakerNoteTags(headroom: headroom, gain: gain)
    }
}
