/// What the `ftyp` box at the start of an ISO media file says it is. Files are recognised by
/// content, never by their name: a HEIC called `.jpg` is a HEIC.
public struct HEIFFileType: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// HEVC-coded HEIF (what iPhones and many Android phones write).
        case heic = "HEIC"
        /// AV1-coded HEIF.
        case avif = "AVIF"
        /// HEIF with another or an undeclared codec (a `mif1` file); libheif decides.
        case heif = "HEIF"
        /// An ISO media file that is no still image (an MP4, a Canon CR3, …).
        case otherISOMedia = "ISO media"
    }

    public var majorBrand: String
    public var compatibleBrands: [String]

    /// Bytes to read from the start of a file to tell: the `ftyp` box's size, type, major
    /// brand, minor version and the first compatible brands.
    public static let sniffLength = 64

    /// The `ftyp` box at the start of `prefix`, or nil when there is none (so: not HEIF).
    public init?(prefix: some Collection<UInt8>) {
        let bytes = Array(prefix.prefix(Self.sniffLength))
        guard bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard boxSize >= 16 || boxSize == 0 || boxSize == 1 else { return nil }
        majorBrand = Self.brand(bytes, at: 8)
        // 0 means "to the end of the file" and 1 a 64-bit size: read what the prefix holds.
        let end = boxSize >= 16 ? min(boxSize, bytes.count) : bytes.count
        compatibleBrands = stride(from: 16, to: end - 3, by: 4).map { Self.brand(bytes, at: $0) }
    }

    public var kind: Kind {
        let brands = [majorBrand] + compatibleBrands
        // The major brand decides first: an AVIF may list `mif1`, an iPhone HEIC lists both.
        for brand in brands {
            if Self.hevcBrands.contains(brand) { return .heic }
            if Self.av1Brands.contains(brand) { return .avif }
        }
        return brands.contains(where: Self.genericBrands.contains) ? .heif : .otherISOMedia
    }

    /// Whether libheif should be given the file: a HEIF of any codec.
    public var isHEIF: Bool { kind != .otherISOMedia }

    /// The file name extension a stored copy gets.
    public var fileExtension: String {
        switch kind {
        case .heic: "heic"
        case .avif: "avif"
        case .heif, .otherISOMedia: "heif"
        }
    }

    static let hevcBrands: Set = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]
    static let av1Brands: Set = ["avif", "avis"]
    static let genericBrands: Set = ["mif1", "msf1", "mif2", "miaf"]

    private static func brand(_ bytes: [UInt8], at offset: Int) -> String {
        String(
            decoding: bytes[offset..<(offset + 4)].map { (0x20...0x7e).contains($0) ? $0 : UInt8(ascii: "?") },
            as: UTF8.self)
    }
}
