/// Three color components. Whether they are linear light or sRGB-encoded is said
/// wherever the type is used.
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    public var red: Float
    public var green: Float
    public var blue: Float

    public init(red: Float, green: Float, blue: Float) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let black = RGBColor(red: 0, green: 0, blue: 0)
    public static let green = RGBColor(red: 0, green: 1, blue: 0)

    public var description: String { "(\(red), \(green), \(blue))" }
}

/// `out = M·c + offset` on linear-light RGB: Core Image's CIColorMatrix without the alpha
/// row and column (row i of `rows` is its R, G or B vector, `offset` its bias vector).
public struct ColorMatrix: Sendable, Hashable {
    /// Row-major 3×3: `rows[0...2]` computes red, `rows[3...5]` green, `rows[6...8]` blue.
    public private(set) var rows: [Float]
    public var offset: RGBColor

    public init(rows: [Float], offset: RGBColor = .black) {
        precondition(rows.count == 9, "a color matrix has 3 rows of 3 coefficients")
        self.rows = rows
        self.offset = offset
    }

    public static let identity = ColorMatrix(rows: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// Rec. 709 luma weights, the `Y` of colorControls and of every greyscale look.
    public static let lumaWeights: (red: Float, green: Float, blue: Float) = (0.2126, 0.7152, 0.0722)

    /// `mix(Y, c, saturation)` as a matrix: each row is `(1 − s)·luma + s·unit row`.
    public static func saturation(_ saturation: Float) -> ColorMatrix {
        let w = [lumaWeights.red, lumaWeights.green, lumaWeights.blue]
        var rows = [Float](repeating: 0, count: 9)
        for row in 0..<3 {
            for column in 0..<3 {
                rows[row * 3 + column] = (1 - saturation) * w[column] + (row == column ? saturation : 0)
            }
        }
        return ColorMatrix(rows: rows)
    }

    /// `diag(gains) · self`: scales each output channel (how the warm and cool looks tint).
    public func scalingRows(by gains: RGBColor) -> ColorMatrix {
        let g = [gains.red, gains.green, gains.blue]
        var scaled = rows
        for index in 0..<9 { scaled[index] *= g[index / 3] }
        return ColorMatrix(
            rows: scaled, offset: RGBColor(red: offset.red * g[0], green: offset.green * g[1], blue: offset.blue * g[2])
        )
    }
}

/// darkroom's looks, named after Core Image's CIPhotoEffect filters but defined here (their
/// numbers are ours, written down in docs/adjustment-formats.md, not Apple's).
public enum PhotoEffect: String, CaseIterable, Sendable, Hashable {
    case mono, noir, tonal, chrome, fade, instant, process, transfer

    /// Each look is `diag(gains)·Saturation(saturation)` in linear light, then a tone curve
    /// per channel on the sRGB-encoded value.
    public var look: PhotoEffectLook {
        switch self {
        case .mono:
            PhotoEffectLook(saturation: 0, contrast: 0, black: .grey(0), white: .grey(1))
        case .noir:
            PhotoEffectLook(saturation: 0, contrast: 0.9, black: .grey(0), white: .grey(1))
        case .tonal:
            PhotoEffectLook(saturation: 0, contrast: -0.25, black: .grey(0.03), white: .grey(0.97))
        case .chrome:
            PhotoEffectLook(saturation: 1.35, contrast: 0.35, black: .grey(0), white: .grey(1))
        case .fade:
            PhotoEffectLook(
                saturation: 0.65, contrast: -0.15,
                black: RGBColor(red: 0.10, green: 0.10, blue: 0.10), white: RGBColor(red: 0.93, green: 0.93, blue: 0.91)
            )
        case .instant:
            PhotoEffectLook(
                saturation: 0.8, gains: RGBColor(red: 1.04, green: 1, blue: 0.92), contrast: 0.1,
                black: RGBColor(red: 0.07, green: 0.05, blue: 0.03), white: RGBColor(red: 1, green: 0.97, blue: 0.88))
        case .process:
            PhotoEffectLook(
                saturation: 0.9, gains: RGBColor(red: 0.94, green: 1, blue: 1.06), contrast: 0.3,
                black: RGBColor(red: 0, green: 0.03, blue: 0.08), white: RGBColor(red: 0.96, green: 1, blue: 0.98))
        case .transfer:
            PhotoEffectLook(
                saturation: 1.15, gains: RGBColor(red: 1.06, green: 1, blue: 0.90), contrast: 0.2,
                black: RGBColor(red: 0.05, green: 0.03, blue: 0), white: RGBColor(red: 1, green: 0.95, blue: 0.82))
        }
    }
}

/// The numbers that define one look.
public struct PhotoEffectLook: Sendable, Hashable {
    /// Saturation about Rec. 709 luma (0 is greyscale, 1 unchanged).
    public var saturation: Float
    /// Linear-light gain of each output channel, applied after saturation.
    public var gains: RGBColor
    /// S-curve amount `k` in −2…1: 0 leaves tones alone, positive adds contrast, negative flattens.
    public var contrast: Float
    /// sRGB-encoded output of the curve for input 0 (black point) and 1 (white point).
    public var black: RGBColor
    public var white: RGBColor

    public init(saturation: Float, gains: RGBColor = .grey(1), contrast: Float, black: RGBColor, white: RGBColor) {
        precondition((-2...1).contains(contrast), "the S-curve is monotonic only for k in −2…1")
        self.saturation = saturation
        self.gains = gains
        self.contrast = contrast
        self.black = black
        self.white = white
    }

    public var matrix: ColorMatrix { ColorMatrix.saturation(saturation).scalingRows(by: gains) }

    /// The tone curve of `channel` (0 red, 1 green, 2 blue) on an sRGB-encoded value `v` in
    /// [0, 1]: `black + (white − black) · S(v)` with `S(v) = v + k·(v²(3 − 2v) − v)`.
    public func curve(_ v: Double, channel: Int) -> Double {
        let k = Double(contrast)
        let shaped = v + k * (v * v * (3 - 2 * v) - v)
        let low = Double([black.red, black.green, black.blue][channel])
        let high = Double([white.red, white.green, white.blue][channel])
        return low + (high - low) * shaped
    }
}

extension RGBColor {
    public static func grey(_ value: Float) -> RGBColor { RGBColor(red: value, green: value, blue: value) }
}

/// Chroma key parameters. `key` and `background` are sRGB-encoded components in 0…1 (the
/// numbers a color picker or `UIColor(red:green:blue:alpha:)` shows); the kernel converts
/// them to linear light, where the distance is measured.
public struct ChromaKey: Sendable, Hashable {
    public var key: RGBColor
    public var threshold: Float
    public var background: RGBColor

    public init(key: RGBColor = .green, threshold: Float = 0.7, background: RGBColor = .black) {
        self.key = key
        self.threshold = threshold
        self.background = background
    }
}
