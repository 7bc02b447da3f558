import LittleCMS

/// 8-bit RGB pixels described by an ICC profile, converted into sRGB with Little CMS (relative
/// colorimetric): how a render is compared with one made in another colour space, such as
/// Apple's Display P3 renders of an sRGB original. Renders themselves convert nothing (see
/// `OutputColorProfile`), so this lives with the tests.
public final class SRGBConversion {
    private let transform: RGBTransform

    /// Throws when Little CMS cannot read `icc` or it does not describe RGB pixels.
    public init(fromICC icc: [UInt8]) throws {
        transform = try RGBTransform(from: ColorProfile(iccBytes: icc), to: ColorProfile.sRGB())
    }

    /// `rgb` (3 bytes a pixel) in sRGB.
    public func convert(_ rgb: [UInt8]) -> [UInt8] {
        var converted = [UInt8](repeating: 0, count: rgb.count)
        rgb.withUnsafeBytes { source in
            converted.withUnsafeMutableBytes { target in
                transform.convert(source, into: target, pixels: rgb.count / 3)
            }
        }
        return converted
    }
}
