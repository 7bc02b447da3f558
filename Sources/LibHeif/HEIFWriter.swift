/// The codec a `HEIFWriter` codes the picture with.
public enum HEIFCodec: String, Sendable, CaseIterable {
    /// AV1: an AVIF file (major brand `avif`), through libheif's AOM plugin (libheif-plugin-aomenc).
    case av1
    /// HEVC: a HEIC file (major brand `heic`), through libheif's x265 plugin: the tests' inputs.
    case hevc
}

/// How the chroma planes are subsampled.
public enum HEIFChroma: String, Sendable, CaseIterable {
    case yuv420 = "420"
    case yuv422 = "422"
    case yuv444 = "444"
}

/// How a `HEIFWriter` codes a picture, and what the file says about it.
public struct HEIFWriteSettings: Sendable, Equatable {
    public var codec: HEIFCodec
    /// 1 (smallest) … 100 (best), lossy: libheif's quality scale.
    public var quality: Int
    /// Lossless coding (`quality` is then not used); 4:4:4 keeps the colours exact.
    public var lossless: Bool
    /// AOM's speed (`cpu-used`), 0 (slowest, smallest) … 9 (fastest); HEVC does not use it.
    public var speed: Int
    public var chroma: HEIFChroma
    /// EXIF orientation (1…8) stored as `irot`/`imir`: the pixels given are the stored ones, and
    /// a reader shows them turned by this. 1 writes neither box.
    public var orientation: Int
    /// EXIF as a JPEG's APP1 payload (`Exif\0\0` + TIFF) or bare TIFF, for the `Exif` item
    /// (libheif writes the offset to the TIFF header before it).
    public var exif: [UInt8]?
    /// An XMP packet for the image's `mime` item (application/rdf+xml).
    public var xmp: [UInt8]?
    /// An ICC profile for a `colr prof` box, as given (libheif does not read it).
    public var iccProfile: [UInt8]?
    /// An nclx `colr` box, and the matrix and range the RGB pixels are coded with; without one,
    /// libheif codes with BT.601 full range and writes no nclx box.
    public var nclx: HEIFColorDescription?

    public static let qualities = 1...100
    public static let speeds = 0...9
    public static let orientations = 1...8
    /// The renditions' speed: measured on photos at 1440 and 320 px, qualities 50 and 80 (aom 3.6.0, one
    /// thread), 6 is 4…6 times faster than 4 and 5 within 0.3 dB and 2 % of their bytes; 7…9 lose ~1 dB.
    public static let defaultSpeed = 6

    public init(
        codec: HEIFCodec = .av1, quality: Int, lossless: Bool = false, speed: Int = defaultSpeed,
        chroma: HEIFChroma = .yuv420, orientation: Int = 1, exif: [UInt8]? = nil, xmp: [UInt8]? = nil,
        iccProfile: [UInt8]? = nil, nclx: HEIFColorDescription? = nil
    ) {
        self.codec = codec
        self.quality = quality
        self.lossless = lossless
        self.speed = speed
        self.chroma = chroma
        self.orientation = orientation
        self.exif = exif
        self.xmp = xmp
        self.iccProfile = iccProfile
        self.nclx = nclx
    }

    /// Bytes of the metadata libheif copies into the file being written.
    var metadataBytes: Int { (exif?.count ?? 0) + (xmp?.count ?? 0) + (iccProfile?.count ?? 0) }
}

/// An ISO 21496-1 gain map written with a picture: 8-bit samples, grey (coded monochrome) or
/// RGB interleaved, rows top to bottom, no padding; and the `tmap` item's data.
public struct HEIFGainMapPicture: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 1: a luminance map; 3: a colour map (RGB).
    public var channels: Int
    public var samples: [UInt8]
    /// A version byte, then ISO 21496-1's metadata (`ISOGainMapMetadata.encodeToneMapItem`).
    public var toneMapItem: [UInt8]

    /// A `tmap` item is a few hundred bytes.
    public static let maxToneMapBytes = 64 << 10

    public init(width: Int, height: Int, channels: Int, samples: [UInt8], toneMapItem: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.samples = samples
        self.toneMapItem = toneMapItem
    }

    /// The map's samples code no colour (their primaries and transfer are unspecified); a colour
    /// map's RGB is coded with BT.601 at full range, which the `colr` box says.
    static let nclx = HEIFColorDescription(primaries: 2, transfer: 2, matrix: 6, fullRange: true)

    func check(settings: HEIFWriteSettings, name: String) throws(HEIFError) {
        func misuse(_ message: String) -> HEIFError { HEIFError.writing(.misuse, message, object: name) }
        guard settings.codec == .av1 else { throw misuse("darkroom writes a gain map only into an AVIF") }
        guard settings.orientation == 1 else {
            throw misuse("a gain map is written only with upright pixels (orientation 1): turn them first")
        }
        guard channels == 1 || channels == 3 else { throw misuse("a gain map has 1 or 3 channels, not \(channels)") }
        guard (1...HEIFWriter.maxSide).contains(width), (1...HEIFWriter.maxSide).contains(height) else {
            throw misuse("a gain map of \(width)×\(height) pixels: give 1 to \(HEIFWriter.maxSide) a side")
        }
        guard samples.count == width * height * channels else {
            throw misuse(
                "the gain map holds \(samples.count) bytes, but \(width)×\(height) pixels of \(channels) "
                    + "channels need \(width * height * channels)")
        }
        guard !toneMapItem.isEmpty, toneMapItem.count <= Self.maxToneMapBytes else {
            throw misuse("a tmap item of \(toneMapItem.count) bytes: give 1 to \(Self.maxToneMapBytes)")
        }
    }
}

/// Writes one picture as a one-image HEIF or AVIF file in memory: the one owner of libheif's
/// encoding API (its handles live in `HEIFWriter+Handles.swift` and never leave it).
///
/// The encoder codes on the calling thread (AOM's `threads` is 1): a worker's slots are its
/// parallelism, and `workingBytes` is measured for one thread.
public enum HEIFWriter {
    /// The longest side written: AV1 level 6's widest frame (16 384); renditions are far smaller.
    public static let maxSide = 16_384
    /// The largest EXIF, XMP or ICC block written (a HEIF's items have no 64 KiB bound).
    public static let maxMetadataBytes = 16 << 20

    /// Codes `rgb` (8-bit interleaved RGB, `width * 3` bytes a row, no padding) as a one-image
    /// file: AVIF (major brand `avif`) for `.av1`, HEIC for `.hevc`. Everything the caller gives
    /// is checked before libheif is called (`.misuse` for what is out of range, `.tooLarge` past
    /// `maxSide` or `maxMetadataBytes`); libheif's own failures keep its code and message.
    /// `name` names the object in errors.
    ///
    /// With a `gainMap` (AVIF only, orientation 1), the file also holds the map, coded as its own
    /// hidden image, and a `tmap` item deriving the HDR picture from the two, preferred to the
    /// primary image in an `altr` group (ISO 21496-1 in HEIF, as libavif writes and Chrome reads).
    public static func encode(
        rgb: UnsafeBufferPointer<UInt8>, width: Int, height: Int, settings: HEIFWriteSettings,
        gainMap: HEIFGainMapPicture? = nil, name: String
    ) throws(HEIFError) -> [UInt8] {
        try check(width: width, height: height, rgbCount: rgb.count, settings: settings, name: name)
        if let gainMap { try gainMap.check(settings: settings, name: name) }
        do { try HEIFLibrary.requireSupportedVersion(path: name) } catch {
            var writing = error
            writing.whileWriting = true
            throw writing
        }
        let context = try WritingContext(name: name)
        let handle: EncodedImage
        do {
            // The copy of the pixels libheif codes from, and the encoder, live only until they are coded.
            let image = try InputImage(width: width, height: height, channels: 3, name: name)
            try image.fill(from: rgb)
            try image.describe(iccProfile: settings.iccProfile, nclx: settings.nclx)
            let encoder = try EncoderHandle(context: context, codec: settings.codec, name: name)
            try encoder.configure(settings)
            handle = try context.encode(image, with: encoder, settings: settings)
        }
        if let exif = settings.exif { try context.addExif(exif, to: handle) }
        if let xmp = settings.xmp { try context.addXMP(xmp, to: handle) }
        guard let gainMap else { return try context.write() }
        let items = try context.addGainMap(gainMap, to: handle, width: width, height: height, settings: settings)
        return try HEIFToneMapLayout.finish(try context.write(), items: items, name: name)
    }

    /// The bytes libheif and its encoder hold at their peak while `encode` codes a picture of
    /// `width` × `height` (each side taken within 1…`maxSide`), beyond the caller's `rgb`: libheif's
    /// copy of the pixels, its YCbCr planes, AOM's buffers and the returned file. An upper bound
    /// a memory planner reserves.
    ///
    /// Measured on Debian 12 (libheif 1.19.7, aom 3.6.0, x265 3.5, glibc 2.36, 2 cores) as the
    /// larger of the peak live heap (every malloc counted by an LD_PRELOAD shim) and the peak RSS
    /// over the RSS before encoding, one throwaway process per encode: three real photos at 320,
    /// 640, 1024, 1440, 2048, 3000 and 4032 px long side, and every size of 480…2048 × 480…2048
    /// cut from one; qualities 50 and 80 and lossless, 4:2:0 and 4:4:4, speeds 0…9 (0…3 at 320,
    /// 640 and 1440 px only: they hold what 4 does). AOM holds about 40 bytes a pixel while the
    /// shorter side is under 1080 and 27 above it (4:2:0, speeds 6…9; 4:4:4 58 and 45), speeds 0…5
    /// up to half as much again; small pictures about 8 MiB. The envelope below is at least 1.05
    /// times every measurement (worst: 1440×961 at speed 6, 53.9 MiB at 4:2:0, 80.8 MiB lossless
    /// 4:4:4; 1080×1440 at speed 4 and 4:4:4, 98.0 MiB), and a quarter more is added. HEVC (the
    /// tests' only, x265 with its own thread pool) was measured on 2 cores only. The metadata
    /// counts twice: the context's copy, and the file's.
    public static func workingBytes(width: Int, height: Int, settings: HEIFWriteSettings) -> Int {
        let pixels = min(max(width, 1), maxSide) * min(max(height, 1), maxSide)
        let subsampled = settings.chroma == .yuv420
        let (fixed, perPixel) =
            switch settings.codec {
            case .av1 where settings.speed >= 6: (8 << 20, subsampled ? 40 : 58)
            case .av1: (8 << 20, subsampled ? 48 : 64)
            case .hevc: (16 << 20, 40)
            }
        return (fixed + perPixel * pixels) / 4 * 5 + 2 * settings.metadataBytes
    }

    /// What `encode` holds beyond `workingBytes` for a gain map of `width` × `height`: its coder
    /// runs once the picture's has ended, beside the coded picture (within the file's share of
    /// `workingBytes`), so the map's own envelope (4:4:4 for a colour map) is the addition, with
    /// its samples and metadata. An upper bound.
    public static func gainMapWorkingBytes(width: Int, height: Int, channels: Int, settings: HEIFWriteSettings)
        -> Int
    {
        var mapSettings = settings
        mapSettings.chroma = channels == 1 ? .yuv420 : .yuv444
        (mapSettings.exif, mapSettings.xmp, mapSettings.iccProfile) = (nil, nil, nil)
        let side = { (value: Int) in min(max(value, 1), maxSide) }
        return workingBytes(width: width, height: height, settings: mapSettings) + side(width) * side(height)
            * channels + 2 * HEIFGainMapPicture.maxToneMapBytes
    }

    /// Every refusal that needs no libheif call.
    static func check(width: Int, height: Int, rgbCount: Int, settings: HEIFWriteSettings, name: String)
        throws(HEIFError)
    {
        func misuse(_ message: String) -> HEIFError { HEIFError.writing(.misuse, message, object: name) }
        guard width >= 1, height >= 1 else {
            throw misuse("a picture of \(width)×\(height) pixels cannot be written: give at least 1×1")
        }
        guard width <= maxSide, height <= maxSide else {
            throw HEIFError.writing(
                .tooLarge,
                "a picture of \(width)×\(height) pixels is larger than the \(maxSide) a side "
                    + "darkroom writes as HEIF: scale it down first", object: name)
        }
        guard rgbCount == width * height * 3 else {
            throw misuse(
                "the RGB buffer holds \(rgbCount) bytes, but \(width)×\(height) pixels need "
                    + "\(width * height * 3) (3 bytes a pixel, no row padding)")
        }
        guard HEIFWriteSettings.qualities.contains(settings.quality) else {
            throw misuse("quality \(settings.quality) is outside 1…100: give a quality in that range")
        }
        guard HEIFWriteSettings.speeds.contains(settings.speed) else {
            throw misuse("speed \(settings.speed) is outside AOM's 0…9: give a speed in that range")
        }
        guard HEIFWriteSettings.orientations.contains(settings.orientation) else {
            throw misuse("orientation \(settings.orientation) is no EXIF orientation: give 1…8")
        }
        for (block, bytes) in [("EXIF", settings.exif), ("XMP", settings.xmp), ("ICC profile", settings.iccProfile)] {
            guard let bytes else { continue }
            guard !bytes.isEmpty else { throw misuse("the \(block) block is empty: give nil for none") }
            guard bytes.count <= maxMetadataBytes else {
                throw HEIFError.writing(
                    .tooLarge,
                    "the \(block) block has \(bytes.count) bytes, more than the \(maxMetadataBytes) "
                        + "darkroom writes into a HEIF", object: name)
            }
        }
        if let exif = settings.exif, !startsWithTIFFHeader(exif) {
            throw misuse("the EXIF block starts with neither `Exif\\0\\0` and a TIFF header nor a TIFF header")
        }
    }

    /// An APP1 payload (`Exif\0\0` + TIFF) or bare TIFF: libheif itself looks for the header
    /// anywhere, which would take a stray `MM\0*` inside other bytes.
    private static func startsWithTIFFHeader(_ bytes: [UInt8]) -> Bool {
        let tiff = bytes.starts(with: HEIFExifBlock.app1Header) ? bytes.dropFirst(6) : bytes[...]
        return tiff.count >= 8
            && (tiff.starts(with: [0x4d, 0x4d, 0x00, 0x2a]) || tiff.starts(with: [0x49, 0x49, 0x2a, 0x00]))
    }
}
