import GainMaps

/// The parts of an EXIF block that `OutputExif` rewrites, walked and validated up front so
/// that no patch is applied to a block that turns out to be unsafe halfway through.
struct ExifLayout {
    var buffer: TIFFBuffer
    let ifd0: TIFFDirectory
    let exifIFD: TIFFDirectory?
    /// The thumbnail's JPEG bytes; `nil` when there is no thumbnail inside the payload.
    let thumbnail: Range<Int>?

    private enum Tag {
        static let orientation: UInt16 = 0x0112
        static let exifIFDPointer: UInt16 = 0x8769
        static let pixelXDimension: UInt16 = 0xA002
        static let pixelYDimension: UInt16 = 0xA003
        static let thumbnailOffset: UInt16 = 0x0201
        static let thumbnailLength: UInt16 = 0x0202
        static let gpsIFDPointer: UInt16 = 0x8825
        static let interoperabilityIFDPointer: UInt16 = 0xA005

        static let offsetTypes = [TIFFDirectory.Entry.long, TIFFDirectory.Entry.ifd]
        static let integerTypes = [TIFFDirectory.Entry.short, TIFFDirectory.Entry.long]
        /// The tags libexif follows to another directory, from whichever directory holds them.
        static let pointers: Set<UInt16> = [exifIFDPointer, gpsIFDPointer, interoperabilityIFDPointer]
    }

    /// More directories than EXIF defines (IFD0, IFD1, Exif, GPS, Interoperability) several
    /// times over: a block that needs more is refused rather than walked.
    static let maxDirectories = 16

    init(payload: [UInt8]) throws(ExifRewriteError) {
        let buffer = try TIFFBuffer(payload: payload)
        self.buffer = buffer
        // Bytes nothing else may share: the header and every directory walked so far.
        var claimed: [Range<Int>] = [0..<8]
        ifd0 = try ExifLayout.directory(at: buffer.firstIFDOffset, named: "IFD0", in: buffer, claimed: &claimed)

        // The Exif IFD is patched, so the rewrite must know the one libexif reads: at most one
        // pointer to it, in IFD0, where EXIF puts it (libexif follows one from any directory).
        let exifPointers = ifd0.entries.filter { $0.tag == Tag.exifIFDPointer }
        guard exifPointers.count <= 1 else {
            throw .structure(.misplacedPointer, "IFD0 points to an Exif IFD \(exifPointers.count) times", [:])
        }
        if let pointer = exifPointers.first {
            let offset = try ExifLayout.singleValue(
                pointer, named: "ExifIFDPointer", types: Tag.offsetTypes, in: buffer)
            exifIFD = try ExifLayout.directory(at: offset, named: "Exif IFD", in: buffer, claimed: &claimed)
        } else {
            exifIFD = nil
        }

        // Everything libexif reads from IFD0 on is kept: each directory reached through a
        // pointer, read as libexif reads it, and the out-of-line values (such as the MakerNote).
        var protected = claimed
        let patched = [ifd0] + (exifIFD.map { [$0] } ?? [])
        for directory in try ExifLayout.reachable(from: patched, exifIFD: exifIFD, in: buffer) {
            let values = directory.entries.compactMap { entry in
                directory.outOfLineValueRange(of: entry, in: buffer).map {
                    (name: "The value of tag \(entry.tag)", range: $0)
                }
            }
            // The rewrite patches IFD0 and the Exif IFD in place, so a value (or another
            // directory) stored inside them would change under it, Make or GPS included.
            let isPatched = patched.contains { $0.offset == directory.offset }
            for kept in (isPatched ? [] : [(name: "A directory", range: directory.range)]) + values {
                if let target = patched.first(where: { $0.range.overlaps(kept.range) }) {
                    throw .structure(
                        .overlappingStructures,
                        "\(kept.name) at \(kept.range) lies inside the directory at \(target.range) that the rewrite patches",
                        [
                            "offset": String(kept.range.lowerBound)
                        ])
                }
            }
            protected.append(directory.range)
            protected += values.map(\.range)
        }

        thumbnail = try ExifLayout.thumbnailRange(after: ifd0, in: buffer, protected: protected)
    }

    /// `start` and every directory reached from them through pointers, the way libexif follows
    /// them: from any directory, the value field read as an offset whatever its type and count,
    /// a directory running past the end read as far as its whole entries go. Nothing read here
    /// is patched, only kept from the thumbnail eraser, so nothing needs to be strict; but an
    /// Exif IFD other than `exifIFD` would be read without being patched, and is refused.
    private static func reachable(
        from start: [TIFFDirectory], exifIFD: TIFFDirectory?, in buffer: TIFFBuffer
    ) throws(ExifRewriteError) -> [TIFFDirectory] {
        var found = start
        var visited = Set(start.map(\.offset))
        var next = 0
        while next < found.count {
            for entry in found[next].entries where Tag.pointers.contains(entry.tag) {
                guard let offset = try? Int(buffer.uint32(at: entry.valueFieldOffset)) else { continue }
                // Whatever it points at (IFD0 included), libexif would read it as the Exif IFD.
                if entry.tag == Tag.exifIFDPointer, offset != exifIFD?.offset {
                    throw .structure(
                        .misplacedPointer, "A pointer to an Exif IFD at offset \(offset) lies outside IFD0",
                        [
                            "entryOffset": String(entry.entryOffset)
                        ])
                }
                guard visited.insert(offset).inserted, let directory = TIFFDirectory(partialAt: offset, in: buffer)
                else { continue }
                guard found.count < maxDirectories else {
                    throw .structure(
                        .tooManyDirectories, "The EXIF data links more than \(maxDirectories) directories", [:])
                }
                found.append(directory)
            }
            next += 1
        }
        return found
    }

    /// The thumbnail JPEG bytes referenced from IFD1, validated against everything we keep.
    ///
    /// Lenient where leniency is safe: an IFD1 or thumbnail that lies outside the payload has
    /// no bytes in it to erase, and unlinking IFD1 removes it either way. A loop back into a
    /// kept directory, or a thumbnail overlapping kept data, is an error: erasing it would
    /// corrupt what we promise to keep.
    private static func thumbnailRange(
        after ifd0: TIFFDirectory, in buffer: TIFFBuffer, protected: [Range<Int>]
    ) throws(ExifRewriteError) -> Range<Int>? {
        let ifd1Offset = Int(try buffer.uint32(at: ifd0.nextDirectoryFieldOffset))
        guard ifd1Offset != 0, buffer.contains(ifd1Offset, length: 2) else { return nil }
        var claimed = protected
        try checkUnclaimed(ifd1Offset, as: "IFD1", in: claimed)
        // Unlinking IFD1 would also unlink whatever it points to, which libexif reads today.
        if let partial = TIFFDirectory(partialAt: ifd1Offset, in: buffer),
            let pointer = partial.entries.first(where: { Tag.pointers.contains($0.tag) })
        {
            throw .structure(
                .misplacedPointer, "IFD1 (the thumbnail's directory) holds a pointer to another directory",
                [
                    "entryOffset": String(pointer.entryOffset)
                ])
        }
        guard let ifd1 = try? TIFFDirectory(at: ifd1Offset, in: buffer, name: "IFD1") else { return nil }
        try claim(ifd1.range, as: "IFD1", in: &claimed)

        func value(_ tag: UInt16) -> Int? {
            guard let entry = ifd1.entries.first(where: { $0.tag == tag }) else { return nil }
            return try? singleValue(entry, named: "thumbnail tag", types: Tag.integerTypes, in: buffer)
        }
        guard let start = value(Tag.thumbnailOffset), let length = value(Tag.thumbnailLength),
            length > 0, buffer.contains(start, length: length)
        else { return nil }

        let thumbnail = start..<start + length
        try claim(thumbnail, as: "thumbnail", in: &claimed)
        return thumbnail
    }

    mutating func dropThumbnail() throws(ExifRewriteError) {
        if let thumbnail { try buffer.zero(thumbnail) }
        try buffer.setUInt32(0, at: ifd0.nextDirectoryFieldOffset)
    }

    mutating func setOrientationUpright() throws(ExifRewriteError) {
        for entry in ifd0.entries where entry.tag == Tag.orientation {
            try write(entry, type: TIFFDirectory.Entry.short, value: 1)
        }
    }

    mutating func setPixelDimensions(width: UInt32, height: UInt32) throws(ExifRewriteError) {
        guard let exifIFD else { return }
        for entry in exifIFD.entries {
            let value: UInt32
            switch entry.tag {
            case Tag.pixelXDimension: value = width
            case Tag.pixelYDimension: value = height
            default: continue
            }
            // Keep the writer's SHORT when the new value fits, so readers see the type they expect.
            let type =
                entry.type == TIFFDirectory.Entry.short && value <= UInt16.max
                ? TIFFDirectory.Entry.short : TIFFDirectory.Entry.long
            try write(entry, type: type, value: value)
        }
    }

    /// Rewrites an entry in place as one inline SHORT or LONG; whatever its old type and count,
    /// a single value always fits the 4-byte field, so nothing else has to move.
    private mutating func write(_ entry: TIFFDirectory.Entry, type: UInt16, value: UInt32) throws(ExifRewriteError) {
        try buffer.setUInt16(type, at: entry.entryOffset + 2)
        try buffer.setUInt32(1, at: entry.entryOffset + 4)
        try buffer.setUInt32(0, at: entry.valueFieldOffset)
        if type == TIFFDirectory.Entry.short {
            try buffer.setUInt16(UInt16(value), at: entry.valueFieldOffset)
        } else {
            try buffer.setUInt32(value, at: entry.valueFieldOffset)
        }
    }

    /// The one value of an entry that must hold a single integer of one of `types`.
    private static func singleValue(
        _ entry: TIFFDirectory.Entry, named name: String, types: [UInt16], in buffer: TIFFBuffer
    ) throws(ExifRewriteError) -> Int {
        guard entry.count == 1, types.contains(entry.type) else {
            throw .structure(
                .malformedEntry, "\(name) is not a single offset or length",
                [
                    "entryOffset": String(entry.entryOffset), "type": String(entry.type), "count": String(entry.count),
                ])
        }
        return entry.type == TIFFDirectory.Entry.short
            ? Int(try buffer.uint16(at: entry.valueFieldOffset))
            : Int(try buffer.uint32(at: entry.valueFieldOffset))
    }

    /// Reads a directory that must not start inside, or overlap, anything already walked.
    private static func directory(
        at offset: Int, named name: String, in buffer: TIFFBuffer, claimed: inout [Range<Int>]
    ) throws(ExifRewriteError) -> TIFFDirectory {
        // Checked before reading: a pointer back into a walked directory is a loop, whatever
        // entry count the bytes there happen to spell.
        try checkUnclaimed(offset, as: name, in: claimed)
        let directory = try TIFFDirectory(at: offset, in: buffer, name: name)
        try claim(directory.range, as: name, in: &claimed)
        return directory
    }

    private static func checkUnclaimed(_ offset: Int, as name: String, in claimed: [Range<Int>])
        throws(ExifRewriteError)
    {
        if let other = claimed.first(where: { $0.contains(offset) }) {
            throw .structure(
                .overlappingStructures,
                "\(name) at offset \(offset) points into other EXIF data at \(other), a loop or corrupt offset",
                [
                    "structure": name, "offset": String(offset),
                ])
        }
    }

    private static func claim(_ range: Range<Int>, as name: String, in claimed: inout [Range<Int>])
        throws(ExifRewriteError)
    {
        if let other = claimed.first(where: { $0.overlaps(range) }) {
            throw .structure(
                .overlappingStructures,
                "\(name) at \(range) overlaps other EXIF data at \(other), a loop or corrupt offset",
                [
                    "structure": name, "offset": String(range.lowerBound),
                ])
        }
        claimed.append(range)
    }
}
