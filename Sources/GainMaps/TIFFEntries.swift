/// One 12-byte entry of a TIFF image file directory.
public struct TIFFEntry: Sendable, Equatable {
    public var tag: UInt16
    public var type: UInt16
    public var count: UInt32
    /// Where the entry starts, in the reader's own offsets.
    public var entryOffset: Int
    /// Where its 4-byte value-or-offset field starts.
    public var valueFieldOffset: Int { entryOffset + 8 }

    public init(tag: UInt16, type: UInt16, count: UInt32, entryOffset: Int) {
        self.tag = tag
        self.type = type
        self.count = count
        self.entryOffset = entryOffset
    }
}

/// The one reader of a TIFF directory's entries, for every TIFF structure darkroom reads (an
/// EXIF block, the MPF index, Apple's MakerNote): a 2-byte count, then 12-byte entries, then
/// the next directory's 4-byte offset, in the structure's byte order. Each caller turns a
/// `Problem` into its own error.
public enum TIFFEntries {
    public enum Problem: Error, Sendable, Equatable {
        /// Not even the 2-byte count lies inside the bytes.
        case countOutside
        /// The claimed entries (and the next offset after them) run past the end.
        case entriesCut(claimed: Int)
    }

    /// The directory at `start` of `bytes`: its entries, with offsets in the caller's terms
    /// (`start` and each `entryOffset` minus `origin`), and the count it claimed. With `partial`,
    /// as many whole entries as lie inside, however many it claims (as libexif reads one).
    public static func read(
        _ bytes: [UInt8], at start: Int, origin: Int = 0, bigEndian: Bool, partial: Bool = false
    ) throws(Problem) -> (entries: [TIFFEntry], claimed: Int) {
        func u16(_ at: Int) -> UInt16 {
            let (a, b) = (UInt16(bytes[at]), UInt16(bytes[at + 1]))
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ at: Int) -> UInt32 {
            let (a, b) = (UInt32(u16(at)), UInt32(u16(at + 2)))
            return bigEndian ? a << 16 | b : b << 16 | a
        }
        guard start >= 0, start <= bytes.count - 2 else { throw .countOutside }
        let claimed = Int(u16(start))
        let fits = (bytes.count - start - 2) / 12
        let count: Int
        if partial {
            count = min(claimed, fits)
        } else {
            guard claimed * 12 + 4 <= bytes.count - start - 2 else { throw .entriesCut(claimed: claimed) }
            count = claimed
        }
        let entries = (0..<count).map { index in
            let at = start + 2 + 12 * index
            return TIFFEntry(tag: u16(at), type: u16(at + 2), count: u32(at + 4), entryOffset: at - origin)
        }
        return (entries, claimed)
    }
}
