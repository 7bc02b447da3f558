/// One IFD of a TIFF structure (the MPF index, an EXIF block, Apple's MakerNote), read within
/// bounds: offsets are relative to `base` (where the TIFF header or the MakerNote starts) and
/// every value must lie inside the bytes.
struct TIFFDirectory {
    typealias Entry = TIFFEntry

    /// More entries than any index, EXIF IFD or MakerNote darkroom reads holds.
    static let maxEntries = 1024

    var entries: [Entry]
    var nextOffset: UInt32

    /// Reads the IFD at `base + offset` (entries' offsets are the bytes' own).
    init(_ bytes: [UInt8], base: Int, offset: UInt32, bigEndian: Bool, structure: GainMapError.Structure)
        throws(GainMapError)
    {
        let start = base + Int(offset)
        let count = Int(try ByteReader.u16(bytes, at: start, bigEndian: bigEndian, structure: structure))
        guard count <= Self.maxEntries else {
            throw GainMapError(
                .tooLarge, structure, "an IFD of \(count) entries (at most \(Self.maxEntries))", at: start)
        }
        do {
            entries = try TIFFEntries.read(bytes, at: start, bigEndian: bigEndian).entries
        } catch {
            throw GainMapError(.cut, structure, "an IFD of \(count) entries runs past the end", at: start)
        }
        nextOffset = try ByteReader.u32(
            bytes, at: start + 2 + 12 * count, bigEndian: bigEndian, structure: structure)
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
                at: entry.valueFieldOffset)
        }
        if length <= 4 { return entry.valueFieldOffset..<entry.valueFieldOffset + length }
        let start =
            base
            + Int(try ByteReader.u32(bytes, at: entry.valueFieldOffset, bigEndian: bigEndian, structure: structure))
        guard start >= 0, start <= bytes.count - length else {
            throw GainMapError(
                .inconsistent, structure, "tag \(entry.tag)'s \(length) bytes lie outside the data",
                at: entry.valueFieldOffset)
        }
        return start..<start + length
    }
}
