/// One box of an ISO base media file (ISO/IEC 14496-12 §4.2, what HEIF, AVIF and QuickTime are
/// made of): its type and where its payload lies. The one reader of a box's header, for every
/// box darkroom walks itself (LibHeif's search for a sequence's movie box, `MovieMetadata` in
/// it): a 32-bit size and the type, a 64-bit size after them when the size is 1, and 0 for a box
/// that runs to the end of what holds it.
public struct ISOBox: Sendable, Equatable {
    /// Its four bytes, big-endian (`moov` is 0x6D6F_6F76).
    public var type: UInt32
    /// Its bytes after the header, within what holds it.
    public var payload: Range<Int>

    /// The box at `offset` of `bytes`, in a holder that ends at `end` (at most `bytes.count`); nil
    /// when its header or its size does not fit there, which ends a walk.
    public static func at(_ offset: Int, in bytes: UnsafeRawBufferPointer, end: Int) -> ISOBox? {
        guard offset >= 0, end <= bytes.count, end - offset >= 8 else { return nil }
        var size = Int(uint32(bytes, offset))
        var header = 8
        if size == 1 {
            guard end - offset >= 16 else { return nil }
            let large = UInt64(uint32(bytes, offset + 8)) << 32 | UInt64(uint32(bytes, offset + 12))
            guard large <= UInt64(end - offset) else { return nil }
            (size, header) = (Int(large), 16)
        } else if size == 0 {
            size = end - offset
        }
        guard size >= header, size <= end - offset else { return nil }
        return ISOBox(type: uint32(bytes, offset + 4), payload: (offset + header)..<(offset + size))
    }

    /// Where the next box after this one starts.
    public var end: Int { payload.upperBound }

    static func uint32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }
}
