import GainMaps

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
            guard let box = ISOBox.at(offset, in: file, end: file.count) else { return nil }
            if box.type == 0x6D6F_6F76 {  // "moov"
                return box.end - offset <= maxBytes ? Array(file[offset..<box.end]) : nil
            }
            offset = box.end
        }
        return nil
    }
}
