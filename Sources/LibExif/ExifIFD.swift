/// One of the image file directories libexif sorts entries into.
public enum ExifIFD: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The main image: Make, Model, Orientation, DateTime.
    case zero
    /// The thumbnail image.
    case one
    /// The Exif sub-IFD: DateTimeOriginal, PixelXDimension, MakerNote.
    case exif
    case gps
    case interoperability

    public var description: String {
        switch self {
        case .zero: "IFD0"
        case .one: "IFD1"
        case .exif: "Exif"
        case .gps: "GPS"
        case .interoperability: "Interoperability"
        }
    }
}
