import LibExif

/// An EXIF block rebuilt to fit one JPEG APP1 segment, which is also all libexif reads (it
/// stops 0xfffe bytes into a payload).
///
/// A HEIF's Exif item has no such bound (a Xiaomi phone writes 190 KB, mostly MakerNote), and
/// its directories may lie anywhere in it. The rebuilt block keeps IFD0 and the Exif, GPS and
/// Interoperability directories with their values, in the original's byte order. It always
/// drops the IFD1 thumbnail and the MakerNote (offsets inside a MakerNote may count from the
/// TIFF header, which the rebuild moves), and then the largest remaining values until it fits.
/// Pure and bounded: at most `maximumInputSize` bytes and four directories are read.
enum ExifCompaction {
    /// The largest block darkroom reads or rebuilds: many times any camera's, and small enough
    /// to hold in memory beside a decode.
    static let maximumInputSize = 4 << 20

    struct Result {
        var payload: [UInt8]
        /// What was left out, for a warning: "thumbnail (IFD1)", "MakerNote (1234 bytes)", tags.
        var dropped: [String]
        /// The tags among `dropped` that went only because the block did not fit otherwise.
        var droppedToFit: [String]
    }

    /// - Throws: `ExifRewriteError` when the block is larger than `maximumInputSize`, not EXIF,
    ///   has no readable IFD0, or does not fit `limit` even with every out-of-line value dropped.
    /// Without `keepingLocation`, the GPS directory is left out too.
    static func compact(_ payload: [UInt8], fitting limit: Int, keepingLocation: Bool = true) throws(ExifRewriteError)
        -> Result
    {
        guard payload.count <= maximumInputSize else {
            throw ExifRewriteError(
                code: .payloadTooLarge,
                message:
                    "The EXIF block has \(payload.count) bytes, more than the \(maximumInputSize) darkroom reads; treat the photo as having no EXIF.",
                context: ["payloadBytes": String(payload.count)])
        }
        guard payload.starts(with: TIFFBuffer.exifHeader) else {
            throw ExifRewriteError(
                code: .notExifPayload,
                message: "The bytes do not start with \"Exif\\0\\0\"; pass an EXIF APP1 payload.",
                context: ["payloadBytes": String(payload.count)])
        }
        let buffer = try TIFFBuffer(payload: payload)
        var reader = ExifDirectoryReader(buffer: buffer)
        guard let ifd0 = reader.directory(at: buffer.firstIFDOffset) else {
            throw .structure(.outOfBounds, "IFD0 starts past the end of the EXIF data", [:])
        }
        var block = ExifBlockLayout(
            ifd0: ifd0.fields,
            exif: ifd0.pointers[Tag.exifIFDPointer].flatMap { reader.directory(at: $0) },
            gps: keepingLocation
                ? ifd0.pointers[Tag.gpsIFDPointer].flatMap { reader.directory(at: $0)?.fields } ?? [] : [])
        block.interoperability =
            block.exifPointers[Tag.interoperabilityIFDPointer].flatMap { reader.directory(at: $0)?.fields } ?? []
        var dropped = reader.dropped
        // A directory cut short by the end of the data has no next-directory link to follow.
        if let next = try? buffer.uint32(at: ifd0.nextDirectoryField), next != 0 {
            dropped.insert("thumbnail (IFD1)", at: 0)
        }

        // Largest first, so the fewest values go; ties by position keep the result stable.
        let outOfLine = block.allFields.filter { $0.field.value.count > 4 }
            .sorted { ($0.field.value.count, $1.key) > ($1.field.value.count, $0.key) }
        var droppedToFit: [String] = []
        var index = 0
        // Counted down, not measured again, so a block of many values costs one sort: an entry
        // and its value go; a directory left empty would save more, so the count is an upper bound.
        var size = block.size
        while size > limit {
            guard index < outOfLine.count else {
                throw .structure(
                    .payloadTooLarge, "Even without its values the EXIF directories exceed \(limit) bytes",
                    ["payloadBytes": String(payload.count)])
            }
            let victim = outOfLine[index]
            block.remove(victim.key)
            size -= 12 + ExifBlockLayout.padded(victim.field.value.count)
            droppedToFit.append("tag \(ExifTag(victim.field.tag)) (\(victim.field.value.count) bytes)")
            index += 1
        }
        guard !block.ifd0.isEmpty || block.hasSubdirectories else {
            throw .structure(.emptyDirectory, "No entry of IFD0 survives the rebuild", [:])
        }
        return Result(
            payload: block.payload(isBigEndian: buffer.isBigEndian), dropped: dropped + droppedToFit,
            droppedToFit: droppedToFit)
    }

    enum Tag {
        static let exifIFDPointer: UInt16 = 0x8769
        static let gpsIFDPointer: UInt16 = 0x8825
        static let interoperabilityIFDPointer: UInt16 = 0xA005
        static let makerNote: UInt16 = 0x927C
        /// Tags whose values are offsets into the old block (strips, tiles, a JPEG thumbnail,
        /// sub-IFDs): meaningless once it is rebuilt.
        static let offsets: Set<UInt16> = [0x0111, 0x0117, 0x0144, 0x0145, 0x014A, 0x0201, 0x0202]
        static let pointers: Set<UInt16> = [exifIFDPointer, gpsIFDPointer, interoperabilityIFDPointer]
    }
}
