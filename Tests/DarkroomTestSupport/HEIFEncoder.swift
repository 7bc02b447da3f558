import LibHeif

/// How the tests write a HEIF or AVIF input, with what phones put in theirs: the settings of
/// LibHeif's `HEIFWriter` (the one owner of libheif's encoder) with the tests' defaults (HEVC,
/// quality 90).
public struct HEIFEncoding: Sendable {
    public typealias Codec = HEIFCodec

    public var codec: Codec
    public var quality: Int
    public var lossless: Bool
    /// "420", "422" or "444".
    public var chroma: String
    /// EXIF orientation (1…8) to store as `irot`/`imir`: the pixels given are the stored
    /// ones, and a decoder shows them turned by this.
    public var orientation: Int
    /// EXIF as a JPEG's APP1 payload (`Exif\0\0` + TIFF) or bare TIFF.
    public var exif: [UInt8]?
    /// An XMP packet for the image's `mime` item (application/rdf+xml).
    public var xmp: [UInt8]?
    /// An ICC profile for a `colr prof` box.
    public var iccProfile: [UInt8]?
    /// An nclx `colr` box (also the matrix and range the RGB pixels are coded with).
    public var nclx: HEIFColorDescription?

    public init(
        codec: Codec = .hevc, quality: Int = 90, lossless: Bool = false, chroma: String = "420", orientation: Int = 1,
        exif: [UInt8]? = nil, xmp: [UInt8]? = nil, iccProfile: [UInt8]? = nil, nclx: HEIFColorDescription? = nil
    ) {
        self.codec = codec
        self.quality = quality
        self.lossless = lossless
        self.chroma = chroma
        self.orientation = orientation
        self.exif = exif
        self.xmp = xmp
        self.iccProfile = iccProfile
        self.nclx = nclx
    }

    /// The writer's settings; AV1 at the writer's default speed.
    public var settings: HEIFWriteSettings {
        guard let chroma = HEIFChroma(rawValue: chroma) else {
            preconditionFailure("chroma \"\(chroma)\" is none of 420, 422, 444")
        }
        return HEIFWriteSettings(
            codec: codec, quality: quality, lossless: lossless, chroma: chroma, orientation: orientation, exif: exif,
            xmp: xmp, iccProfile: iccProfile, nclx: nclx)
    }
}

public enum HEIFEncoder {
    /// Encodes `rgb` (`width * 3` bytes a row, no padding) as a one-image HEIF file in memory,
    /// through `HEIFWriter`.
    public static func encode(
        rgb: [UInt8], width: Int, height: Int, encoding: HEIFEncoding,
        name: String = "encoded HEIF"
    ) throws(HEIFError) -> [UInt8] {
        let settings = encoding.settings
        return try rgb.withUnsafeBufferPointer { (buffer) throws(HEIFError) in
            try HEIFWriter.encode(rgb: buffer, width: width, height: height, settings: settings, name: name)
        }
    }
}
