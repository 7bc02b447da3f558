import LibExif

/// Builds the EXIF block for a rendered JPEG from the original's.
///
/// The rendered pixels are upright and possibly resized, so the original block would lie
/// about both. Rather than re-serialise (libexif rewrites MakerNotes and drops what it cannot
/// parse), this patches a copy of the original bytes in place; no offset moves, so MakerNotes
/// and every tag it does not touch survive byte for byte.
public enum OutputExif {
    /// A new APP1 payload (`Exif\0\0` + TIFF, same size as the input) in which:
    /// - Orientation (0x0112) in IFD0 is 1; if the original has none it stays absent, which
    ///   also means 1;
    /// - PixelXDimension/PixelYDimension (0xA002/0xA003) in the Exif IFD hold the new size
    ///   (as SHORT when the original used SHORT and the value fits, else LONG); if absent they
    ///   stay absent, as the block cannot grow in place;
    /// - the IFD1 thumbnail is unlinked (IFD0's next-IFD offset is 0) and its JPEG bytes are
    ///   zeroed, since it shows the old, unrotated and uncropped picture.
    ///
    /// - Throws: `ExifRewriteError` when the payload is not EXIF, when the new size is not
    ///   positive, or when IFD0, the Exif IFD or the thumbnail cannot be walked safely
    ///   (offsets out of bounds, loops, overlaps). Write the JPEG without EXIF then.
    public static func rewrite(app1Payload: [UInt8], pixelWidth: Int, pixelHeight: Int) throws(ExifRewriteError)
        -> [UInt8]
    {
        let context = ["payloadBytes": String(app1Payload.count)]
        guard app1Payload.starts(with: exifHeader) else {
            throw ExifRewriteError(
                code: .notExifPayload,
                message:
                    "The bytes do not start with \"Exif\\0\\0\"; pass the payload of the original's EXIF APP1 segment.",
                context: context
            )
        }
        guard app1Payload.count <= maximumPayloadSize else {
            throw ExifRewriteError(
                code: .payloadTooLarge,
                message: "An APP1 payload holds at most \(maximumPayloadSize) bytes; pass a single segment's payload.",
                context: context
            )
        }
        let validSize = 1...Int(UInt32.max)
        guard validSize.contains(pixelWidth), validSize.contains(pixelHeight) else {
            throw ExifRewriteError(
                code: .invalidDimensions,
                message:
                    "The rendered size \(pixelWidth)×\(pixelHeight) must be positive and fit in 32 bits; pass the size of the encoded output.",
                context: context
            )
        }

        var layout = try ExifLayout(payload: app1Payload)
        try layout.dropThumbnail()
        try layout.setOrientationUpright()
        try layout.setPixelDimensions(width: UInt32(pixelWidth), height: UInt32(pixelHeight))
        return layout.buffer.payload
    }

    /// The EXIF a render carries: `rewrite`'s, from a block first rebuilt to fit one APP1
    /// segment when the original is larger (a HEIF's Exif item can be): `dropped` then names
    /// what was left out (the thumbnail and MakerNote first, `ExifCompaction`), for a warning.
    /// Without `keepsLocation` the block is always rebuilt, without its GPS directory and the
    /// MakerNote (whose contents cannot be vetted for a position); what that leaves out was
    /// asked for and is not in `dropped`.
    ///
    /// - Throws: `ExifRewriteError` as `rewrite` does, or when the original is larger than
    ///   `ExifCompaction.maximumInputSize` or does not fit even rebuilt.
    public static func fitted(
        app1Payload: [UInt8], pixelWidth: Int, pixelHeight: Int, keepsLocation: Bool = true
    ) throws(ExifRewriteError) -> (payload: [UInt8], dropped: [String]) {
        guard app1Payload.count > maximumPayloadSize || !keepsLocation else {
            return (try rewrite(app1Payload: app1Payload, pixelWidth: pixelWidth, pixelHeight: pixelHeight), [])
        }
        let compacted = try ExifCompaction.compact(
            app1Payload, fitting: maximumPayloadSize, keepingLocation: keepsLocation)
        let payload = try rewrite(app1Payload: compacted.payload, pixelWidth: pixelWidth, pixelHeight: pixelHeight)
        return (payload, app1Payload.count > maximumPayloadSize ? compacted.dropped : [])
    }

    static let maximumPayloadSize = ExifDocument.maximumPayloadSize
    private static let exifHeader = TIFFBuffer.exifHeader
}
