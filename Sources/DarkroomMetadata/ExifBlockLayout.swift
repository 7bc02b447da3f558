import GainMaps

/// One entry with its value's bytes, in the block's byte order.
struct ExifField {
    var tag: UInt16
    var type: UInt16
    var count: UInt32
    var value: [UInt8]
}

/// Reads directories leniently, as libexif does: whole entries inside the data, values that lie
/// outside it skipped. Each offset is read once, so a loop cannot repeat a directory.
struct ExifDirectoryReader {
    struct Directory {
        var fields: [ExifField]
        var pointers: [UInt16: Int]
        var nextDirectoryField: Int
    }

    let buffer: TIFFBuffer
    var visited: Set<Int> = []
    var dropped: [String] = []

    mutating func directory(at offset: Int) -> Directory? {
        guard visited.insert(offset).inserted, let directory = TIFFDirectory(partialAt: offset, in: buffer) else {
            return nil
        }
        var fields: [ExifField] = []
        var pointers: [UInt16: Int] = [:]
        var seen: Set<UInt16> = []
        for entry in directory.entries where seen.insert(entry.tag).inserted {
            if ExifCompaction.Tag.pointers.contains(entry.tag) {
                if let target = try? buffer.uint32(at: entry.valueFieldOffset) { pointers[entry.tag] = Int(target) }
                continue
            }
            if ExifCompaction.Tag.offsets.contains(entry.tag) { continue }
            guard let value = value(of: entry, in: directory) else { continue }
            if entry.tag == ExifCompaction.Tag.makerNote {
                dropped.append("MakerNote (\(value.count) bytes)")
                continue
            }
            fields.append(ExifField(tag: entry.tag, type: entry.type, count: entry.count, value: value))
        }
        return Directory(fields: fields, pointers: pointers, nextDirectoryField: directory.nextDirectoryFieldOffset)
    }

    private func value(of entry: TIFFDirectory.Entry, in directory: TIFFDirectory) -> [UInt8]? {
        guard let size = TIFFType.byteSize(entry.type) else { return nil }
        let length = size * Int(entry.count)
        if length <= 4 { return try? buffer.bytes(at: entry.valueFieldOffset, length: length) }
        guard let range = directory.outOfLineValueRange(of: entry, in: buffer) else { return nil }
        return try? buffer.bytes(at: range.lowerBound, length: range.count)
    }
}

/// The directories of the rebuilt block, laid out IFD0, Exif, Interoperability, GPS, each
/// followed by its out-of-line values.
struct ExifBlockLayout {
    enum Kind: Int, Comparable {
        case ifd0, exif, interoperability, gps
        static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }
    struct Key: Comparable {
        var kind: Kind
        var index: Int
        static func < (a: Key, b: Key) -> Bool { (a.kind, a.index) < (b.kind, b.index) }
    }

    var ifd0: [ExifField]
    var exifFields: [ExifField]
    var exifPointers: [UInt16: Int]
    var gps: [ExifField]
    var interoperability: [ExifField] = []

    init(ifd0: [ExifField], exif: ExifDirectoryReader.Directory?, gps: [ExifField]) {
        self.ifd0 = ifd0
        exifFields = exif?.fields ?? []
        exifPointers = exif?.pointers ?? [:]
        self.gps = gps
    }

    var hasSubdirectories: Bool { !exifFields.isEmpty || !gps.isEmpty || !interoperability.isEmpty }

    var allFields: [(key: Key, field: ExifField)] {
        [(Kind.ifd0, ifd0), (.exif, exifFields), (.interoperability, interoperability), (.gps, gps)]
            .flatMap { kind, fields in fields.enumerated().map { (Key(kind: kind, index: $0.offset), $0.element) } }
    }

    /// Drops a value by emptying it in place, so the other keys stay valid.
    mutating func remove(_ key: Key) {
        switch key.kind {
        case .ifd0: ifd0[key.index].count = 0
        case .exif: exifFields[key.index].count = 0
        case .interoperability: interoperability[key.index].count = 0
        case .gps: gps[key.index].count = 0
        }
    }

    /// Each directory's entries in tag order, removed ones and empty directories left out,
    /// with the pointers that link them.
    private var directories: [(kind: Kind, fields: [ExifField])] {
        func kept(_ fields: [ExifField]) -> [ExifField] { fields.filter { $0.count > 0 }.sorted { $0.tag < $1.tag } }
        let interoperability = kept(interoperability)
        var exif = kept(exifFields)
        let gps = kept(gps)
        var ifd0 = kept(ifd0)
        // Placeholders now: pointers are inline LONGs, so their size is known before their value.
        let pointer = { (tag: UInt16) in ExifField(tag: tag, type: 4, count: 1, value: [0, 0, 0, 0]) }
        if !interoperability.isEmpty {
            exif = (exif + [pointer(ExifCompaction.Tag.interoperabilityIFDPointer)]).sorted { $0.tag < $1.tag }
        }
        if !exif.isEmpty { ifd0.append(pointer(ExifCompaction.Tag.exifIFDPointer)) }
        if !gps.isEmpty { ifd0.append(pointer(ExifCompaction.Tag.gpsIFDPointer)) }
        return [
            (Kind.ifd0, ifd0.sorted { $0.tag < $1.tag }), (.exif, exif), (.interoperability, interoperability),
            (.gps, gps),
        ]
        .filter { $0.kind == .ifd0 || !$0.fields.isEmpty }
    }

    var size: Int {
        TIFFBuffer.tiffStart + 8 + directories.reduce(0) { $0 + Self.size(of: $1.fields) }
    }

    func payload(isBigEndian: Bool) -> [UInt8] {
        let order = TIFFByteOrder(isBigEndian: isBigEndian)
        var layout = directories
        var offsets: [Kind: Int] = [:]
        var next = 8
        for directory in layout {
            offsets[directory.kind] = next
            next += Self.size(of: directory.fields)
        }
        let targets: [UInt16: Kind] = [
            ExifCompaction.Tag.exifIFDPointer: .exif, ExifCompaction.Tag.gpsIFDPointer: .gps,
            ExifCompaction.Tag.interoperabilityIFDPointer: .interoperability,
        ]
        for index in layout.indices {
            for fieldIndex in layout[index].fields.indices {
                guard let target = targets[layout[index].fields[fieldIndex].tag], let offset = offsets[target] else {
                    continue
                }
                layout[index].fields[fieldIndex].value = order.bytes(UInt32(offset))
            }
        }
        var tiff =
            (isBigEndian ? Array("MM".utf8) : Array("II".utf8)) + order.bytes(UInt16(42)) + order.bytes(UInt32(8))
        for directory in layout {
            tiff += Self.encode(directory.fields, at: offsets[directory.kind] ?? 0, order: order)
        }
        return TIFFBuffer.exifHeader + tiff
    }

    private static func size(of fields: [ExifField]) -> Int {
        2 + 12 * fields.count + 4 + fields.reduce(0) { $0 + ($1.value.count > 4 ? padded($1.value.count) : 0) }
    }

    static func padded(_ count: Int) -> Int { count + count % 2 }

    /// The directory (its next-directory link 0: no IFD1) and then its out-of-line values.
    private static func encode(_ fields: [ExifField], at offset: Int, order: TIFFByteOrder) -> [UInt8] {
        var valueOffset = offset + 2 + 12 * fields.count + 4
        var entries = order.bytes(UInt16(fields.count))
        var values: [UInt8] = []
        for field in fields {
            entries += order.bytes(field.tag) + order.bytes(field.type) + order.bytes(field.count)
            if field.value.count > 4 {
                entries += order.bytes(UInt32(valueOffset))
                values += field.value + (field.value.count % 2 == 1 ? [0] : [])
                valueOffset += padded(field.value.count)
            } else {
                entries += field.value + [UInt8](repeating: 0, count: 4 - field.value.count)
            }
        }
        return entries + order.bytes(UInt32(0)) + values
    }
}

struct TIFFByteOrder {
    var isBigEndian: Bool

    func bytes(_ value: UInt16) -> [UInt8] {
        let bytes = [UInt8(value >> 8), UInt8(truncatingIfNeeded: value)]
        return isBigEndian ? bytes : bytes.reversed()
    }

    func bytes(_ value: UInt32) -> [UInt8] {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
        return isBigEndian ? bytes : bytes.reversed()
    }
}
