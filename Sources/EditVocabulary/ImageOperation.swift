/// One step of a render, already validated. Color operations work on linear-light RGB;
/// positions are those of the oriented image as it stands at that step. `rotate` and `orient`
/// turn that image: what follows them sees the turned picture as the whole image.
public enum ImageOperation: Sendable, Hashable {
    /// out = c · 2^ev
    case exposure(ev: Float)
    /// out = mix(c, clamp(M·c), intensity) with the classic sepia matrix M.
    case sepia(intensity: Float)
    /// out = c · max(0, 1 − intensity · smoothstep(|p − centre| / (halfDiagonal · radius)))
    case vignette(intensity: Float, radius: Float)
    /// Keeps `rect` of the image as it stands at this step.
    case crop(PixelRect)
    /// Turns the image as it stands by any angle about its centre, then keeps a window (see `Rotation`).
    case rotate(Rotation)
    /// Applies an EXIF orientation (a quarter turn, a flip or both) to the image as it stands, as
    /// a viewer shows a stored image with that orientation; exact, whole pixels.
    case orient(Orientation)
    /// Y = Rec. 709 luma; c = mix(Y, c, saturation); c += brightness; c = (c − ½)·contrast + ½
    case colorControls(saturation: Float, brightness: Float, contrast: Float)
    /// out = M·c + offset
    case colorMatrix(ColorMatrix)
    /// Each sRGB-encoded channel v becomes round(v·(levels − 1)) / (levels − 1); levels 2…256.
    case posterize(levels: Int)
    /// One of darkroom's looks (matrix, then tone curve), mixed with the input by intensity.
    case photoEffect(PhotoEffect, intensity: Float)
    /// Pixels within `threshold` (linear-light distance) of the key color become the background.
    case chromaKey(ChromaKey)
    /// Separable Gaussian, σ = `sigma` pixels, truncated at ±ceil(3σ), edges clamped.
    case gaussianBlur(sigma: Float)
    /// out = c + intensity · (c − gaussianBlur(c, sigma))
    case unsharpMask(sigma: Float, intensity: Float)
    /// A stored `.cube` LUT on the sRGB-encoded values, mixed with the input by intensity
    /// (`ColorKernels+LUT.swift`).
    case filter(FilterStep)

    /// Which operation this is, without its parameters.
    public enum Kind: String, Sendable, CaseIterable {
        case exposure, sepia, vignette, crop, rotate, orient, colorControls, colorMatrix, posterize, photoEffect
        case chromaKey, gaussianBlur, unsharpMask, filter
    }

    public var kind: Kind {
        switch self {
        case .exposure: .exposure
        case .sepia: .sepia
        case .vignette: .vignette
        case .crop: .crop
        case .rotate: .rotate
        case .orient: .orient
        case .colorControls: .colorControls
        case .colorMatrix: .colorMatrix
        case .posterize: .posterize
        case .photoEffect: .photoEffect
        case .chromaKey: .chromaKey
        case .gaussianBlur: .gaussianBlur
        case .unsharpMask: .unsharpMask
        case .filter: .filter
        }
    }

    /// The operation's name, as the pipeline format and render records spell it.
    public var name: String { kind.rawValue }
}
