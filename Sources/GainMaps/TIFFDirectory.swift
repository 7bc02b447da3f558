/// One IFD of a TIFF structure (the MPF index, an EXIF block, Apple's MakerNote), read within
/// bounds: offsets are relative to `base` (where the TIFF header or the MakerNote starts) and
/// every value must lie inside the bytes.
struct TIFFDirectory {
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        /// Where the 4-byte value-or-offset field lies in the bytes.
        var fieldOffset: Int
    }

    /// More entries than any index, EXIF IFD or MakerNote darkroom reads holds.
    static let maxEntries = 1024

    var entries: [Entry]
    var nextOffset: UInt32

    /// Reads the IFD at `base + offset`.
    init(_ bytes: [UInt8], base: Int, offset: UInt32, bigEndian: Bool, structure: GainMapError.Structure)
        throws(GainMapError)
    {
        let start = base + Int(offset)
        var reader = ByteReader(bytes, structure: structure, bigEndian: bigEndian, offset: start)
        let count = Int(try reader.u16())
        guard count <= Self.maxEntries else {
            throw GainMapError(
                .tooLarge, structure, "an IFD of \(count) entries (at most \(Self.maxEntries))", at: start)
        }
        guard reader.remaining >= count * 12 + 4 else {
            throw GainMapError(.cut, structure, "an IFD of \(count) entries runs past the end", at: start)
        }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let tag = try reader.u16()
            let type = try reader.u16()
            let valueCount = try reader.u32()
            entries.append(Entry(tag: tag, type: type, count: valueCount, fieldOffset: reader.offset))
            reader.offset += 4
        }
        self.entries = entries
        nextOffset = try reader.u32()
    }

    func entry(_ tag: UInt16) -> Entry? { entries.first { $0.tag == tag } }

    /// Where an entry's values lie: in its field when they fit in 4 bytes, else at its offset.
    static func valueRange(
        of entry: Entry, in bytes: [UInt8], base: Int, bigEndian: Bool, structure: GainMapError.Structure
    ) throws(GainMapError) -> Range<Int> {
        guard let size = TIFFType.byteSize(entry.type) else {
            throw GainMapError(.malformed, structure, "tag \(entry.tag) has the unknown type \(entry.type)")
        }
        let (length, overflow) = Int(entry.count).multipliedReportingOverflow(by: size)
        guard !overflow, length <= bytes.count else {
            throw GainMapError(
                .inconsistent, structure, "tag \(entry.tag) claims \(entry.count) values, more than the bytes hold",
                at: entry.fieldOffset)
        }
        if length <= 4 { return entry.fieldOffset..<entry.fieldOffset + length }
        let start =
            base
            + Int(try ByteReader.u32(bytes, at: entry.fieldOffset, bigEndian: bigEndian, structure: structure))
        guard start >= 0, start <= bytes.count - length else {
            throw GainMapError(
                .inconsistent, structure, "tag \(entry.tag)'s \(length) bytes lie outside the data",
                at: entry.fieldOffset)
        }
        return start..<start + length
    }
}
