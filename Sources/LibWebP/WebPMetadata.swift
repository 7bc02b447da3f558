/// The metadata chunks a WebP carries beside its image. Each is written as given, apart from
/// EXIF's JPEG prefix; `WebPEncoder.encode` checks them before anything is encoded.
public struct WebPMetadata: Sendable, Equatable {
    /// The most bytes the three together may hold: `WebPEncoder.workingBytes` counts them
    /// (twice: the assembled file and its copy) without knowing them.
    public static let maxTotalBytes = 1 << 20

    /// An ICC profile, whole (its 128-byte header with the `acsp` signature first): the ICCP chunk.
    public var iccProfile: [UInt8]?
    /// EXIF as a TIFF structure (starting "II*\0" or "MM\0*"), which the EXIF chunk holds. A JPEG
    /// APP1 payload (starting "Exif\0\0") is accepted too: the prefix is dropped when written.
    public var exif: [UInt8]?
    /// An XMP packet (UTF-8 XML), as is: the "XMP " chunk.
    public var xmp: [UInt8]?

    public init(iccProfile: [UInt8]? = nil, exif: [UInt8]? = nil, xmp: [UInt8]? = nil) {
        self.iccProfile = iccProfile
        self.exif = exif
        self.xmp = xmp
    }

    public var isEmpty: Bool { iccProfile == nil && exif == nil && xmp == nil }

    /// The bytes of the EXIF chunk: `exif` without a JPEG APP1 prefix, or nil when `exif` is
    /// no TIFF structure.
    var exifTIFF: ArraySlice<UInt8>? {
        guard let exif else { return nil }
        let body = exif.starts(with: Array("Exif\0\0".utf8)) ? exif.dropFirst(6) : exif[...]
        let little: [UInt8] = [0x49, 0x49, 0x2A, 0x00]
        let big: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A]
        return body.starts(with: little) || body.starts(with: big) ? body : nil
    }

    /// Why the metadata cannot be written, or nil when it can.
    var problem: String? {
        if let iccProfile, iccProfile.count < 128 || !iccProfile[36..<40].elementsEqual("acsp".utf8) {
            return "the ICC profile is not one (no 128-byte header with the 'acsp' signature);"
                + " pass the profile whole or none"
        }
        if exif != nil, exifTIFF == nil {
            return "the EXIF block starts with neither a TIFF header (II*\\0 or MM\\0*) nor 'Exif\\0\\0' and one;"
                + " pass the APP1 payload or its TIFF part"
        }
        if let xmp, xmp.isEmpty { return "the XMP packet is empty; pass nil for none" }
        let total = (iccProfile?.count ?? 0) + (exifTIFF?.count ?? 0) + (xmp?.count ?? 0)
        if total > Self.maxTotalBytes {
            return "the metadata holds \(total) bytes, more than the \(Self.maxTotalBytes) a WebP rendition"
                + " carries; drop the largest (usually the ICC profile or XMP)"
        }
        return nil
    }
}
