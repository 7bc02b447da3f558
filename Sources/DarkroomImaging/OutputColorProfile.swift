import JPEGTurbo
import LibHeif

/// The ICC profile a render embeds so its colours mean what the original's did. darkroom does
/// no gamut conversion: the pixels stay in the original's colour space (libheif applies no
/// profile either) and a profile travels with them, so a Display P3 photo keeps its colours in
/// any colour-managed viewer (see `ICCProfile` for why embedding, not converting).
struct OutputColorProfile {
    var iccProfile: [UInt8]?
    /// Said when the colours cannot be described in the render.
    var warning: RenderWarning?

    /// darkroom's own sRGB profile (ICC v2, as it builds for nclx), which converted renders carry.
    static let sRGB: [UInt8] = {
        do {
            return try ICCProfile(primaries: ColorPrimaries.bt709.rgbPrimaries!, transfer: .sRGB).bytes
        } catch {
            preconditionFailure("darkroom's sRGB profile is built from constants: \(error)")
        }
    }()

    init(for header: SourceHeader) {
        switch header.codec {
        case .jpeg(let jpeg) where jpeg.colorSpace == .cmyk || jpeg.colorSpace == .ycck:
            // Converted to sRGB (CMYKConversion): the original's profile describes ink, not these pixels.
            iccProfile = Self.sRGB
        case .jpeg(let jpeg):
            iccProfile = jpeg.iccProfile
        case .heif(let heif):
            if let icc = heif.iccProfile {
                iccProfile = icc
            } else if let nclx = heif.nclx {
                // No colour description, or an sRGB one: a JPEG without a profile is read as sRGB.
                do {
                    let description = try ColorDescription(
                        primaries: nclx.primaries, transfer: nclx.transfer,
                        matrix: nclx.matrix, isFullRange: nclx.fullRange)
                    if !description.isSRGB { iccProfile = try ICCProfile(for: description).bytes }
                } catch {
                    warning = .colorProfileNotEmbedded(reason: "\(error)")
                }
            }
        }
    }
}
