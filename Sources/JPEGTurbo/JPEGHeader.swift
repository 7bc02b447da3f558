internal import CJPEG

/// What a JPEG says about itself before any pixel is decoded: enough to plan a render.
public struct JPEGHeader: Sendable, Equatable {
    public enum ColorSpace: String, Sendable {
        case grayscale, ycbcr, rgb, cmyk, ycck, unknown
    }

    public var width: Int
    public var height: Int
    public var components: Int
    public var colorSpace: ColorSpace
    /// Progressive or multi-scan files need libjpeg's whole-image coefficient buffer.
    public var isProgressive: Bool
    public var bitsPerSample: Int
    /// Per component (horizontal, vertical) sampling factors, e.g. [(2,2),(1,1),(1,1)] for 4:2:0.
    public var samplingFactors: [SamplingFactor]
    /// The first APP1 payload that starts with "Exif\0\0", as stored.
    public var exifPayload: [UInt8]?
    /// The ICC profile reassembled from its APP2 chunks.
    public var iccProfile: [UInt8]?
    /// The first XMP APP1 segment's packet (after its `http://ns.adobe.com/xap/1.0/\0`
    /// signature), as stored; nil without one.
    public var xmpPacket: [UInt8]?
    /// Whether an APP2 segment holds an MPF index (CIPA DC-007): images follow this one, a gain
    /// map among them perhaps.
    public var hasMPF: Bool = false
    /// The transform flag of an Adobe APP14 marker (0: stored as is, 1: YCbCr, 2: YCCK), nil
    /// without one. Adobe's CMYK and YCCK files (Photoshop's) store CMYK inverted (0 is full ink),
    /// and mark it with this marker; other writers store ink amounts.
    public var adobeTransform: Int?

    public struct SamplingFactor: Sendable, Equatable {
        public var horizontal: Int
        public var vertical: Int
        public init(horizontal: Int, vertical: Int) {
            self.horizontal = horizontal
            self.vertical = vertical
        }
    }

    /// Height in pixels of one MCU row: libjpeg decodes this many rows at a time.
    public var mcuRowHeight: Int {
        8 * (samplingFactors.map(\.vertical).max() ?? 1)
    }

    public init(
        width: Int, height: Int, components: Int, colorSpace: ColorSpace, isProgressive: Bool,
        bitsPerSample: Int = 8, samplingFactors: [SamplingFactor], exifPayload: [UInt8]? = nil,
        iccProfile: [UInt8]? = nil
    ) {
        self.width = width
        self.height = height
        self.components = components
        self.colorSpace = colorSpace
        self.isProgressive = isProgressive
        self.bitsPerSample = bitsPerSample
        self.samplingFactors = samplingFactors
        self.exifPayload = exifPayload
        self.iccProfile = iccProfile
    }
}

extension JPEGHeader.ColorSpace {
    init(_ space: J_COLOR_SPACE) {
        switch space {
        case JCS_GRAYSCALE: self = .grayscale
        case JCS_YCbCr: self = .ycbcr
        case JCS_RGB: self = .rgb
        case JCS_CMYK: self = .cmyk
        case JCS_YCCK: self = .ycck
        default: self = .unknown
        }
    }
}
