/// What a HEIF file says about its primary image before any pixel is decoded: enough to plan
/// a render and to record the asset.
public struct HEIFHeader: Sendable, Equatable {
    public var fileType: HEIFFileType
    /// The displayed size: the coded image after `transforms`.
    public var width: Int
    public var height: Int
    /// The coded size (`ispe`, a grid's output size), which the decoder delivers: rows as coded,
    /// before `transforms`.
    public var codedWidth: Int
    public var codedHeight: Int
    /// `irot`, `imir` and `clap` in the order the file applies them to the coded image.
    public var transforms: [HEIFTransform] = []
    /// A grid image's tiles, which the decoder decodes a row at a time; nil for an image coded
    /// whole, which it decodes at once.
    public var tiling: HEIFTiling?
    public var hasAlpha: Bool
    /// Chroma at full resolution (4:4:4, or RGB): what libheif would decode it to.
    public var fullChroma = false
    /// Bits per luma sample of the coded image (8, 10, 12); output is always 8-bit.
    public var bitDepth: Int
    /// The `Exif` item as a JPEG APP1 payload (`Exif\0\0` + TIFF), see `HEIFExifBlock`.
    public var exifPayload: [UInt8]?
    /// The primary image's XMP packet (a `mime` item of type application/rdf+xml), as stored.
    public var xmpPacket: [UInt8]?
    /// An image sequence's movie box (`moov`), as stored, for its QuickTime metadata; nil for
    /// a still image, or one larger than `HEIFMovieBox.maxBytes`.
    public var movieBox: [UInt8]?
    /// The `colr` box's ICC profile (`prof` or `rICC`), as stored.
    public var iccProfile: [UInt8]?
    /// The `colr` box's nclx description, when the file has one.
    public var nclx: HEIFColorDescription?
    /// Bytes of the whole file, which the decoder holds in memory while it reads.
    public var fileBytes: Int
    /// What could not be read without spoiling the image (an Exif item with no TIFF header).
    public var warnings: [String] = []
    /// The primary image's auxiliary images other than alpha and depth (Apple's HDR gain map
    /// among them).
    public var auxiliaryImages: [HEIFAuxiliaryImage] = []
    /// The `tmap` item whose base is the primary image (an ISO 21496-1 gain map), if any.
    public var toneMap: HEIFToneMap?

    public init(
        fileType: HEIFFileType, width: Int, height: Int, codedWidth: Int, codedHeight: Int, hasAlpha: Bool,
        bitDepth: Int, exifPayload: [UInt8]? = nil, iccProfile: [UInt8]? = nil, nclx: HEIFColorDescription? = nil,
        fileBytes: Int
    ) {
        self.fileType = fileType
        self.width = width
        self.height = height
        self.codedWidth = codedWidth
        self.codedHeight = codedHeight
        self.hasAlpha = hasAlpha
        self.bitDepth = bitDepth
        self.exifPayload = exifPayload
        self.iccProfile = iccProfile
        self.nclx = nclx
        self.fileBytes = fileBytes
    }

    /// Peak bytes per pixel of libheif's decode of an image (or of one tile) to 8-bit RGB,
    /// measured (docs/benchmarks.md, "Plan against peak RSS"; `Tests/Benchmarks/plan-rss-bench.sh`
    /// checks them against the corpus and a 12 MP photo coded whole in every depth and chroma,
    /// with and without alpha; `DecoderMemoryTests` renders every corpus file at its plan): every
    /// decode goes through planar RGB and then the interleaved copy, both alive at once: 3 + 3
    /// for 8-bit; an alpha plane or dav1d's frame pools raise it to 8, and both 11: dav1d's
    /// alpha decode at times still holds the colour's frames (the 12 MP photo peaked 30 MiB
    /// higher in 2 of 8 renders with both cores busy). 16-bit planes plus an 8-bit intermediate
    /// make 12 for deeper sources, and libde265's alpha plane 2 more (dav1d's fits in what its
    /// pools already hold: the 12 MP photo with and without alpha peaked alike, every time).
    /// Full chroma (4:4:4, or RGB coded as such) holds three planes where 4:2:0 holds one and
    /// two quarters, in the decoder's pictures and libheif's copy of them: 4 more at 8 bits (6
    /// for AV1), 10 more deeper; and dav1d holds more than libde265 at depth: 2 more at 4:2:0, 6
    /// at 4:4:4. Without these, the 12 MP photo as 8-bit 4:4:4 HEIC and AVIF peaked 26 and 44 MiB
    /// above their plans, as 10-bit AVIF 3 (4:2:0) and 30 MiB (4:4:4), and Netflix's 2048×858
    /// 10-bit 4:4:4 AVIFs 3 and 12 MiB; an alpha plane at depth was priced at 4 more, which
    /// overpriced the 12 MP photo by 23 MiB (HEVC) and 47 MiB (AV1).
    public var decodeBytesPerPixel: Int {
        let av1 = fileType.kind == .avif
        if bitDepth > 8 {
            return 12 + (hasAlpha && !av1 ? 2 : 0) + (fullChroma ? 10 : 0) + (av1 ? (fullChroma ? 6 : 2) : 0)
        }
        let base = av1 ? (hasAlpha ? 11 : 8) : (hasAlpha ? 8 : 6)
        return base + (fullChroma ? (av1 ? 6 : 4) : 0)
    }
}

/// An nclx colour description (ITU-T H.273 code points), as the `colr` box stores it: raw
/// numbers. What they mean (and whether they need a profile) is `ColorDescription`'s, in
/// DarkroomImaging.
public struct HEIFColorDescription: Sendable, Equatable {
    public var primaries: Int
    public var transfer: Int
    public var matrix: Int
    public var fullRange: Bool

    public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }

    /// Display P3 (P3-D65 primaries, sRGB curve), what iPhones use.
    public static let displayP3 = HEIFColorDescription(primaries: 12, transfer: 13, matrix: 6, fullRange: true)
    public static let sRGB = HEIFColorDescription(primaries: 1, transfer: 13, matrix: 6, fullRange: true)
}
