import GainMaps

/// One image file directory as laid out in the bytes: a 2-byte count, 12-byte entries, then
/// a 4-byte offset of the next directory.
struct TIFFDirectory {
    /// Offsets relative to the TIFF header, as every offset inside EXIF is.
    typealias Entry = TIFFEntry

    /// Where the directory starts.
    var offset: Int
    var entries: [Entry]

    /// The bytes of the directory itself, without any out-of-line values.
    var range: Range<Int> { offset..<nextDirectoryFieldOffset + 4 }
    var nextDirectoryFieldOffset: Int { offset + 2 + 12 * entries.count }

    /// Reads and bounds-checks the directory at `offset`; `name` appears in errors.
    init(at offset: Int, in buffer: TIFFBuffer, name: String) throws(ExifRewriteError) {
        let context = ["directory": name, "offset": String(offset)]
        do {
            entries = try buffer.entries(at: offset, partial: false)
        } catch {
            switch error {
            case .countOutside:
                throw .structure(.outOfBounds, "\(name) starts past the end of the EXIF data", context)
            case .entriesCut(0):
                throw .structure(.emptyDirectory, "\(name) has no entries", context)
            case .entriesCut(let count):
                throw .structure(
                    .outOfBounds, "\(name)'s \(count) entries run past the end of the EXIF data", context)
            }
        }
        guard !entries.isEmpty else {
            throw .structure(.emptyDirectory, "\(name) has no entries", context)
        }
        self.offset = offset
    }

    /// The directory at `offset` as libexif reads it: as many whole entries as lie inside the
    /// data, however many it claims; nil when not even its entry count is inside.
    init?(partialAt offset: Int, in buffer: TIFFBuffer) {
        guard let entries = try? buffer.entries(at: offset, partial: true) else { return nil }
        self.offset = offset
        self.entries = entries
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

extension TIFFEntry {
    static let short: UInt16 = 3
    static let long: UInt16 = 4
    static let ifd: UInt16 = 13
}
