import GainMaps

/// One image file directory as laid out in the bytes: a 2-byte count, 12-byte entries, then
/// a 4-byte offset of the next directory.
struct TIFFDirectory {
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        /// Where this 12-byte entry starts.
        var entryOffset: Int
        /// Where the 4-byte value-or-offset field starts.
        var valueFieldOffset: Int { entryOffset + 8 }
    }

    /// Where the directory starts.
    var offset: Int
    var entries: [Entry]

    /// The bytes of the directory itself, without any out-of-line values.
    var range: Range<Int> { offset..<nextDirectoryFieldOffset + 4 }
    var nextDirectoryFieldOffset: Int { offset + 2 + 12 * entries.count }

    /// Reads and bounds-checks the directory at `offset`; `name` appears in errors.
    init(at offset: Int, in buffer: TIFFBuffer, name: String) throws(ExifRewriteError) {
        let context = ["directory": name, "offset": String(offset)]
        guard buffer.contains(offset, length: 2) else {
            throw .structure(.outOfBounds, "\(name) starts past the end of the EXIF data", context)
        }
        let count = Int(try buffer.uint16(at: offset))
        guard count > 0 else {
            throw .structure(.emptyDirectory, "\(name) has no entries", context)
        }
        guard buffer.contains(offset, length: 2 + 12 * count + 4) else {
            throw .structure(.outOfBounds, "\(name)'s \(count) entries run past the end of the EXIF data", context)
        }
        self.offset = offset
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            let entryOffset = offset + 2 + 12 * index
            entries.append(
                Entry(
                    tag: try buffer.uint16(at: entryOffset),
                    type: try buffer.uint16(at: entryOffset + 2),
                    count: try buffer.uint32(at: entryOffset + 4),
                    entryOffset: entryOffset
                ))
        }
        self.entries = entries
    }

    /// The directory at `offset` as libexif reads it: as many whole entries as lie inside the
    /// data, however many it claims; nil when not even its entry count is inside.
    init?(partialAt offset: Int, in buffer: TIFFBuffer) {
        guard buffer.contains(offset, length: 2), let claimed = try? Int(buffer.uint16(at: offset)) else { return nil }
        let count = min(claimed, (buffer.tiffLength - offset - 2) / 12)
        self.offset = offset
        entries = (0..<count).compactMap { index in
            let entryOffset = offset + 2 + 12 * index
            guard let tag = try? buffer.uint16(at: entryOffset), let type = try? buffer.uint16(at: entryOffset + 2),
                let count = try? buffer.uint32(at: entryOffset + 4)
            else { return nil }
            return Entry(tag: tag, type: type, count: count, entryOffset: entryOffset)
        }
    }

    /// The bytes an entry's value occupies when it does not fit the 4-byte field; `nil` when
    /// it is inline, of a type whose size TIFF does not define, or not inside the payload
    /// (such a value has no bytes here to protect).
    func outOfLineValueRange(of entry: Entry, in buffer: TIFFBuffer) -> Range<Int>? {
        guard let size = TIFFType.byteSize(entry.type) else { return nil }
        let length = size * Int(entry.count)
        guard length > 4, let start = try? Int(buffer.uint32(at: entry.valueFieldOffset)),
            buffer.contains(start, length: length)
        else { return nil }
        return start..<start + length
    }
}

extension TIFFDirectory.Entry {
    static let short: UInt16 = 3
    static let long: UInt16 = 4
    static let ifd: UInt16 = 13
}
