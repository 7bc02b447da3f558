import LibHeif

/// How the tests write a HEIF or AVIF input, with what phones put in theirs: LibHeif's writer
/// settings (`HEIFWriter`, the one owner of libheif's encoder), made with the tests' defaults.
public typealias HEIFEncoding = HEIFWriteSettings

extension HEIFWriteSettings {
    public typealias Codec = HEIFCodec

    /// The tests' defaults: HEVC at quality 90, 4:2:0, upright (AV1 at the writer's default speed).
    /// `orientation` is stored as `irot`/`imir`: the pixels given are the stored ones.
    public static func input(
        codec: HEIFCodec = .hevc, quality: Int = 90, lossless: Bool = false, chroma: HEIFChroma = .yuv420,
        orientation: Int = 1, exif: [UInt8]? = nil, xmp: [UInt8]? = nil, iccProfile: [UInt8]? = nil,
        nclx: HEIFColorDescription? = nil
    ) -> HEIFWriteSettings {
        HEIFWriteSettings(
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
        try rgb.withUnsafeBufferPointer { (buffer) throws(HEIFError) in
            try HEIFWriter.encode(rgb: buffer, width: width, height: height, settings: encoding, name: name)
        }
    }
}
