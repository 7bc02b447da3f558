/// Joins a primary JPEG and its gain map's JPEG into one gain-map JPEG as Ultra HDR and Adobe's
/// gain map 1.0 lay it out: the primary gets XMP naming the gain map (`hdrgm:Version` and the
/// container directory), ISO 21496-1's version-only APP2 and the MPF index; the gain map's JPEG
/// gets its metadata as `hdrgm` XMP and as ISO 21496-1 APP2, and follows the primary's EOI.
/// Bytes only: both JPEGs are encoded already.
public enum GainMapJPEGWriter {
    /// Where the new segments go: after the leading APP0 and APP1 segments (JFIF, Exif), which
    /// must stay first. `header(offset)` gives the 4 bytes at `offset`, nil past the end: the one
    /// rule for a primary held whole and for one streamed from a scratch file.
    public static func insertionOffset(header: (Int) throws -> [UInt8]?) rethrows -> Int {
        var offset = 2
        while let bytes = try header(offset), bytes.count == 4, bytes[0] == 0xFF, bytes[1] == 0xE0 || bytes[1] == 0xE1 {
            offset += 2 + Int(bytes[2]) << 8 + Int(bytes[3])
        }
        return offset
    }

    /// The join without the primary's bytes, which a render streams from a scratch file: the segments to insert at `insertAt` of a primary `primaryLength`
    /// bytes long that carries no XMP or MPF index of its own, and the gain map's JPEG to write
    /// after it.
    public static func layout(insertAt: Int, primaryLength: Int, gainMap: [UInt8], metadata: GainMapMetadata)
        throws(GainMapError) -> (inserted: [UInt8], secondary: [UInt8])
    {
        let metadata = try metadata.validated(.xmp)
        try refuseXMP(in: try JPEGSegments.read(gainMap), of: gainMap)
        let secondary =
            [0xFF, 0xD8]
            + segment(0xE1, GainMapXMP.app1Payload(try GainMapXMP.gainMapPacket(metadata)))
            + segment(0xE2, ISOGainMapMetadata.jpegNamespace + (try ISOGainMapMetadata.encode(metadata)))
            + gainMap[2...]
        let inserted =
            segment(0xE1, GainMapXMP.app1Payload(GainMapXMP.primaryPacket(gainMapLength: secondary.count)))
            + segment(0xE2, ISOGainMapMetadata.jpegNamespace + [0, 0, 0, 0])
        let mpfLength = 4 + MPFIndex.encodedLength(imageCount: 2)
        let mpfHeaderOffset = insertAt + inserted.count + 4 + MPFIndex.signature.count
        let joinedLength = primaryLength + inserted.count + mpfLength
        guard joinedLength + secondary.count <= Int(UInt32.max) else {
            throw GainMapError(.tooLarge, .mpfIndex, "a file of more than 4 GiB")
        }
        let index = MPFIndex(images: [
            MPFIndex.Image(attribute: MPFIndex.Image.baselinePrimary, size: UInt32(joinedLength), offset: 0),
            MPFIndex.Image(
                attribute: 0, size: UInt32(secondary.count), offset: UInt32(joinedLength - mpfHeaderOffset)),
        ])
        return (inserted + segment(0xE2, index.encoded()), secondary)
    }

    /// A marker segment: the marker, its length, the payload (at most 65 533 bytes).
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count <= 65_533, "a marker segment holds at most 65 533 bytes")
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// A JPEG that already has XMP or an MPF index would end with two: darkroom writes both.
    private static func refuseXMP(in segments: [JPEGSegment], of bytes: [UInt8]) throws(GainMapError) {
        for signature in [GainMapXMP.jpegSignature, MPFIndex.signature]
        where segments.contains(where: { bytes[$0.payload].starts(with: signature) }) {
            throw GainMapError(
                .unsupported, .jpeg, "the JPEG already has \(signature == MPFIndex.signature ? "an MPF index" : "XMP")")
        }
    }
}
