/// Builds small, well-formed EXIF APP1 payloads in either byte order, for cases no bundled
/// photo covers (western longitudes, negative altitudes, offsets, odd types, hostile edits).
public struct SyntheticExif {
    public struct Field {
        public var tag: UInt16
        public var type: UInt16
        public var count: UInt32
        /// The value, already in the payload's byte order.
        public var bytes: [UInt8]
    }

    public var bigEndian: Bool
    public var ifd0: [Field] = []
    public var exif: [Field] = []
    public var gps: [Field] = []
    /// When set, IFD1 points at these bytes as a JPEG thumbnail.
    public var thumbnail: [UInt8]?

    public init(bigEndian: Bool) {
        self.bigEndian = bigEndian
    }

    // MARK: Values

    public func ascii(_ tag: UInt16, _ text: String) -> Field {
        let bytes = Array(text.utf8) + [0]
        return Field(tag: tag, type: 2, count: UInt32(bytes.count), bytes: bytes)
    }

    public func byte(_ tag: UInt16, _ value: UInt8) -> Field {
        Field(tag: tag, type: 1, count: 1, bytes: [value])
    }

    public func short(_ tag: UInt16, _ values: UInt16...) -> Field {
        Field(tag: tag, type: 3, count: UInt32(values.count), bytes: values.flatMap(encode))
    }

    public func long(_ tag: UInt16, _ values: UInt32...) -> Field {
        Field(tag: tag, type: 4, count: UInt32(values.count), bytes: values.flatMap(encode))
    }

    public func rationals(_ tag: UInt16, _ values: (UInt32, UInt32)...) -> Field {
        Field(tag: tag, type: 5, count: UInt32(values.count), bytes: values.flatMap { encode($0.0) + encode($0.1) })
    }

    public func signedRationals(_ tag: UInt16, _ values: (Int32, Int32)...) -> Field {
        Field(
            tag: tag, type: 10, count: UInt32(values.count),
            bytes: values.flatMap {
                encode(UInt32(bitPattern: $0.0)) + encode(UInt32(bitPattern: $0.1))
            })
    }

    /// UNDEFINED bytes (a MakerNote, a UserComment, padding), `count` of `filler`.
    public func undefined(_ tag: UInt16, count: Int, filler: UInt8 = 0x55) -> Field {
        Field(tag: tag, type: 7, count: UInt32(count), bytes: [UInt8](repeating: filler, count: count))
    }

    public func encode(_ value: UInt16) -> [UInt8] {
        let bytes = [UInt8(value >> 8), UInt8(truncatingIfNeeded: value)]
        return bigEndian ? bytes : bytes.reversed()
    }

    public func encode(_ value: UInt32) -> [UInt8] {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
        return bigEndian ? bytes : bytes.reversed()
    }

    // MARK: Layout

    /// `Exif\0\0`, header, IFD0 + values, Exif IFD, GPS IFD, IFD1, thumbnail — in that order.
    public var payload: [UInt8] {
        let ifd1: [Field] = thumbnail == nil ? [] : [short(0x0103, 6), long(0x0201, 0), long(0x0202, 0)]
        var pointers: [Field] = []
        if !exif.isEmpty { pointers.append(long(0x8769, 0)) }
        if !gps.isEmpty { pointers.append(long(0x8825, 0)) }

        // Offsets first, from sizes alone; then the same layout again with real pointers.
        let ifd0Offset = 8
        let exifOffset = ifd0Offset + size(of: ifd0 + pointers)
        let gpsOffset = exifOffset + (exif.isEmpty ? 0 : size(of: exif))
        let ifd1Offset = gpsOffset + (gps.isEmpty ? 0 : size(of: gps))
        let thumbnailOffset = ifd1Offset + (ifd1.isEmpty ? 0 : size(of: ifd1))

        pointers = pointers.map { field in
            field.tag == 0x8769 ? long(0x8769, UInt32(exifOffset)) : long(0x8825, UInt32(gpsOffset))
        }
        var tiff: [UInt8] =
            (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + encode(UInt16(42)) + encode(UInt32(ifd0Offset))
        tiff += directory(ifd0 + pointers, at: ifd0Offset, next: ifd1.isEmpty ? 0 : UInt32(ifd1Offset))
        if !exif.isEmpty { tiff += directory(exif, at: exifOffset, next: 0) }
        if !gps.isEmpty { tiff += directory(gps, at: gpsOffset, next: 0) }
        if let thumbnail {
            let fields = [
                short(0x0103, 6), long(0x0201, UInt32(thumbnailOffset)), long(0x0202, UInt32(thumbnail.count)),
            ]
            tiff += directory(fields, at: ifd1Offset, next: 0)
            tiff += thumbnail
        }
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// Directory plus its out-of-line values, padded to even length.
    private func size(of fields: [Field]) -> Int {
        2 + 12 * fields.count + 4 + fields.filter { $0.bytes.count > 4 }.reduce(0) { $0 + padded($1.bytes).count }
    }

    private func directory(_ fields: [Field], at offset: Int, next: UInt32) -> [UInt8] {
        let sorted = fields.sorted { $0.tag < $1.tag }
        var valueOffset = offset + 2 + 12 * sorted.count + 4
        var entries: [UInt8] = encode(UInt16(sorted.count))
        var values: [UInt8] = []
        for field in sorted {
            entries += encode(field.tag) + encode(field.type) + encode(field.count)
            if field.bytes.count > 4 {
                entries += encode(UInt32(valueOffset))
                values += padded(field.bytes)
                valueOffset += padded(field.bytes).count
            } else {
                entries += field.bytes + [UInt8](repeating: 0, count: 4 - field.bytes.count)
            }
        }
        return entries + encode(next) + values
    }

    private func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes.count.isMultiple(of: 2) ? bytes : bytes + [0]
    }
}

extension [UInt8] {
    /// Payload index of the 12-byte IFD0 entry for `tag` (IFD0 at TIFF offset 8 as built above).
    public func ifd0EntryIndex(of tag: UInt16, bigEndian: Bool) -> Int? {
        func uint16(_ index: Int) -> UInt16 {
            bigEndian
                ? UInt16(self[index]) << 8 | UInt16(self[index + 1])
                : UInt16(self[index + 1]) << 8 | UInt16(self[index])
        }
        let directory = 6 + 8
        return (0..<Int(uint16(directory))).map { directory + 2 + 12 * $0 }.first { uint16($0) == tag }
    }
}
