/// An image sequence's movie box (`moov`), which libheif 1.19.7 does not read: where a HEIF
/// `msf1` or AVIF `avis` file keeps its QuickTime metadata (`MovieMetadata` reads it).
enum HEIFMovieBox {
    /// A larger `moov` is left unread: its metadata sits in its first KiB, and its sample
    /// tables grow with the frames (a 1 000-frame burst's are about 50 KiB).
    static let maxBytes = 8 << 20
    /// Top-level boxes looked at before giving up: a HEIF file has a handful.
    static let maxBoxes = 64

    /// The first top-level `moov` box of `file`, header included, or nil.
    static func find(in file: UnsafeRawBufferPointer) -> [UInt8]? {
        var offset = 0
        for _ in 0..<maxBoxes {
            guard file.count - offset >= 8 else { return nil }
            var size = Int(uint32(file, offset))
            var header = 8
            if size == 1 {
                guard file.count - offset >= 16 else { return nil }
                let large = (UInt64(uint32(file, offset + 8)) << 32) | UInt64(uint32(file, offset + 12))
                guard large <= UInt64(file.count - offset) else { return nil }
                (size, header) = (Int(large), 16)
            } else if size == 0 {
                size = file.count - offset
            }
            guard size >= header, size <= file.count - offset else { return nil }
            if uint32(file, offset + 4) == 0x6D6F_6F76 {  // "moov"
                return size <= maxBytes ? Array(file[offset..<(offset + size)]) : nil
            }
            offset += size
        }
        return nil
    }

    private static func uint32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }
}
