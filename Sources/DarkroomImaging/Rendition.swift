import ByteStreams

/// One output a render writes beside its full-size JPEG, scaled from the same strips in the
/// same pass: a grid thumbnail, a viewer preview, a share copy, or the display copy every
/// render writes. Defined as data (`darkroom.renditions`); a value here.
public struct Rendition: Sendable, Equatable, Codable {
    public enum Format: String, Sendable, CaseIterable, Codable {
        case jpeg, webp, avif

        /// The stored file's extension.
        public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
        /// Whether darkroom writes an HDR gain map in this format: Ultra HDR in a JPEG, an
        /// ISO 21496-1 `tmap` item in an AVIF. (libwebp has no gain map.)
        public var carriesGainMap: Bool { self != .webp }
    }

    /// What of the original's metadata the rendition carries. Every choice keeps the colour
    /// profile the pixels need; none carries the original's file name (darkroom never writes it).
    public enum Metadata: String, Sendable, CaseIterable, Codable {
        /// The render's EXIF (upright, resized), as the full render carries it.
        case all
        /// The same without the GPS directory (and the MakerNote, whose contents cannot be vetted).
        case noLocation = "no-location"
        /// No EXIF: only the colour profile.
        case none
    }

    public enum Color: String, Sendable, CaseIterable, Codable {
        /// The render's colour profile (the original's), embedded.
        case source
        /// Converted to sRGB with Little CMS, for viewers that ignore profiles.
        case srgb
    }

    /// The built-in rendition every render wrote before renditions were data.
    public static let displayName = "display"

    public var name: String
    public var format: Format
    public var longestSide: Int
    /// 1…100; nil: the full render's quality.
    public var quality: Int?
    public var metadata: Metadata
    public var color: Color
    /// Carry the render's HDR gain map, when it keeps one (`format.carriesGainMap`).
    public var keepsHDR: Bool

    public init(
        name: String, format: Format, longestSide: Int, quality: Int? = nil, metadata: Metadata = .all,
        color: Color = .source, keepsHDR: Bool = false
    ) {
        self.name = name
        self.format = format
        self.longestSide = longestSide
        self.quality = quality
        self.metadata = metadata
        self.color = color
        self.keepsHDR = keepsHDR
    }

    /// The display copy: JPEG at the render's quality, everything kept.
    public static func display(longestSide: Int = RenderRequest.defaultDisplayLongestSide) -> Rendition {
        Rendition(name: displayName, format: .jpeg, longestSide: longestSide, keepsHDR: true)
    }

    /// Whether this rendition carries a render's gain map.
    var joinsGainMap: Bool { keepsHDR && format.carriesGainMap && color == .source }
}

/// A rendition as planned: its size (never above the render's) and what writing it holds.
public struct RenditionPlan: Sendable, Equatable {
    public var rendition: Rendition
    public var size: PixelSize
    /// Its downscaler, its JPEG encoder or, for WebP and AVIF, the picture held whole for the encoder.
    public var bytes: Int
    /// A WebP or AVIF encoder's peak, when it runs after the strips; 0 for JPEG.
    public var encoderBytes = 0

    /// This rendition's share of a gain map, at the map's `size`: its rows of sums, and a JPEG
    /// encoder (Ultra HDR) or the samples an AVIF codes beside its picture (three channels at most).
    func scaled(to size: PixelSize) -> RenditionPlan {
        let output =
            rendition.format == .jpeg ? RenderPlanner.encoderBytes(width: size.width, fullChroma: true) : size.area * 3
        return RenditionPlan(rendition: rendition, size: size, bytes: size.width * 12 * 4 + size.width * 3 + output)
    }
}

/// The gain map an AVIF rendition codes beside its picture.
struct RenditionMapShape: Sendable, Equatable {
    var size: PixelSize
    /// 1 (a luminance map) or 3.
    var channels: Int
}

/// A rendition as written.
public struct RenditionResult: Sendable, Equatable {
    public var rendition: Rendition
    public var size: PixelSize
    public var bytes: Int

    public init(rendition: Rendition, size: PixelSize, bytes: Int) {
        self.rendition = rendition
        self.size = size
        self.bytes = bytes
    }
}

/// Where a rendition's file goes.
public struct RenditionUpload {
    public var rendition: Rendition
    public var upload: any ObjectUpload

    public init(_ rendition: Rendition, to upload: any ObjectUpload) {
        self.rendition = rendition
        self.upload = upload
    }
}
