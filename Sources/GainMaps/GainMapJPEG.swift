/// Where a JPEG keeps its gain map and what the map's metadata say: the MPF index of the
/// primary image names the images after it; the gain map is the one whose own markers carry
/// gain-map metadata (ISO 21496-1 APP2, `hdrgm` XMP, or Apple's `HDRGainMap` XMP, its headroom
/// then from that XMP or the primary's MakerNote).
public struct GainMapJPEG: Sendable, Equatable {
    public var index: MPFIndex
    /// Where the MP header (the byte after "MPF\0") lies: the MPF offsets count from here.
    public var mpfHeaderOffset: Int
    /// Which MPF image is the gain map (1 for the second).
    public var imageNumber: Int
    /// The gain map's JPEG, in the file's bytes.
    public var range: Range<Int>
    public var kind: GainMapKind
    public var metadata: GainMapMetadata
    /// Whether the MPF offset was taken from the file's start instead of the MP header (some
    /// writers do so; the gain map is found either way).
    public var offsetFromFileStart: Bool

    /// The gain map of the JPEG `bytes`; nil when the file has no MPF index or none of its
    /// images carries gain-map metadata (a stereo MPO, a depth map), unless the primary image
    /// names a gain map (its XMP `hdrgm`, or ISO 21496-1's APP2), which is then `.inconsistent`.
    /// A damaged index, or an image it places outside the file, is an error only when the primary
    /// names a gain map: otherwise nothing says a gain map was there to lose.
    public static func locate(in bytes: [UInt8]) throws(GainMapError) -> GainMapJPEG? {
        let segments = try JPEGSegments.read(bytes)
        guard let mpf = JPEGSegments.first(0xE2, startingWith: MPFIndex.signature, in: segments, of: bytes) else {
            return nil
        }
        let primaryXMP = JPEGSegments.first(0xE1, startingWith: GainMapXMP.jpegSignature, in: segments, of: bytes)
            .map { Array(bytes[$0.payload].dropFirst(GainMapXMP.jpegSignature.count)) }
        let namesGainMap =
            try primaryXMP.flatMap { packet throws(GainMapError) in try GainMapXMP.adobe(packet) } != nil
            || JPEGSegments.first(0xE2, startingWith: ISOGainMapMetadata.jpegNamespace, in: segments, of: bytes) != nil
            || (try? appleHeadroomTags(primarySegments: segments, of: bytes)) != nil
        let index: MPFIndex
        do {
            index = try MPFIndex(app2Payload: Array(bytes[mpf.payload]))
        } catch {
            if namesGainMap { throw error }
            return nil
        }
        let headerOffset = mpf.payload.lowerBound + MPFIndex.signature.count
        for number in index.images.indices.dropFirst() {
            let image = index.images[number]
            guard image.size > 0 else { continue }
            guard let (range, fromStart) = place(image, headerOffset: headerOffset, in: bytes) else {
                guard namesGainMap else { continue }
                throw GainMapError(
                    .inconsistent, .mpfIndex,
                    "MP image \(number + 1) (\(image.size) bytes at offset \(image.offset)) lies outside the "
                        + "\(bytes.count)-byte file or starts no JPEG")
            }
            guard let (kind, metadata) = try metadata(of: range, in: bytes, primarySegments: segments) else {
                continue
            }
            return GainMapJPEG(
                index: index, mpfHeaderOffset: headerOffset, imageNumber: number, range: range, kind: kind,
                metadata: metadata, offsetFromFileStart: fromStart)
        }
        if namesGainMap {
            throw GainMapError(
                .inconsistent, .mpfIndex,
                "the primary image's XMP names a gain map, but none of the \(index.images.count) images carries "
                    + "gain-map metadata")
        }
        return nil
    }

    /// The image's bytes: from the MP header as CIPA DC-007 says, else from the file's start.
    private static func place(_ image: MPFIndex.Image, headerOffset: Int, in bytes: [UInt8]) -> (Range<Int>, Bool)? {
        for (start, fromStart) in [(headerOffset + Int(image.offset), false), (Int(image.offset), true)] {
            let end = start + Int(image.size)
            if start >= 0, end <= bytes.count, image.size >= 4, bytes[start] == 0xFF, bytes[start + 1] == 0xD8 {
                return (start..<end, fromStart)
            }
        }
        return nil
    }

    private static func metadata(of range: Range<Int>, in bytes: [UInt8], primarySegments: [JPEGSegment])
        throws(GainMapError) -> (GainMapKind, GainMapMetadata)?
    {
        let image = Array(bytes[range])
        let segments = try JPEGSegments.read(image)
        if let iso = JPEGSegments.first(
            0xE2, startingWith: ISOGainMapMetadata.jpegNamespace, in: segments, of: image),
            case .metadata(let metadata, _) = try ISOGainMapMetadata.decode(app2Payload: Array(image[iso.payload]))
        {
            return (.iso21496, metadata)
        }
        guard let xmp = JPEGSegments.first(0xE1, startingWith: GainMapXMP.jpegSignature, in: segments, of: image)
        else { return nil }
        let packet = Array(image[xmp.payload].dropFirst(GainMapXMP.jpegSignature.count))
        if let adobe = try GainMapXMP.adobe(packet), let metadata = adobe.metadata { return (.adobeXMP, metadata) }
        guard let apple = try GainMapXMP.apple(packet) else { return nil }
        if let headroom = apple.headroom { return (.apple, try AppleHeadroom.metadata(linearHeadroom: headroom)) }
        guard let tags = try appleHeadroomTags(primarySegments: primarySegments, of: bytes) else {
            throw GainMapError(
                .inconsistent, .appleMakerNote,
                "an Apple gain map without its headroom (no XMP headroom, no tags 33/48)")
        }
        return (.apple, try AppleHeadroom.metadata(stops: AppleHeadroom.stops(tags)))
    }

    /// The primary's Apple MakerNote headroom tags (33/48): an iPhone's mark of an HDR photo.
    private static func appleHeadroomTags(primarySegments: [JPEGSegment], of bytes: [UInt8]) throws(GainMapError)
        -> AppleHeadroom.MakerNoteTags?
    {
        let exif: [UInt8] = Array("Exif".utf8) + [0, 0]
        guard let block = JPEGSegments.first(0xE1, startingWith: exif, in: primarySegments, of: bytes) else {
            return nil
        }
        return try AppleHeadroom.makerNoteTags(exifPayload: Array(bytes[block.payload]))
    }
}
