/// A TIFF/EXIF tag number. The number alone is ambiguous (GPS and Interoperability reuse
/// small numbers), so every lookup also names the `ExifIFD`.
public struct ExifTag: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

extension ExifTag {
    // IFD0
    public static let make = ExifTag(0x010F)
    public static let model = ExifTag(0x0110)
    public static let orientation = ExifTag(0x0112)
    public static let dateTime = ExifTag(0x0132)

    // Exif IFD
    public static let dateTimeOriginal = ExifTag(0x9003)
    public static let dateTimeDigitized = ExifTag(0x9004)
    /// Exif 2.31 offsets; read by number because older libexif releases do not name them.
    public static let offsetTime = ExifTag(0x9010)
    public static let offsetTimeOriginal = ExifTag(0x9011)
    public static let offsetTimeDigitized = ExifTag(0x9012)
    public static let makerNote = ExifTag(0x927C)
    public static let pixelXDimension = ExifTag(0xA002)
    public static let pixelYDimension = ExifTag(0xA003)

    // GPS IFD
    public static let gpsLatitudeRef = ExifTag(0x0001)
    public static let gpsLatitude = ExifTag(0x0002)
    public static let gpsLongitudeRef = ExifTag(0x0003)
    public static let gpsLongitude = ExifTag(0x0004)
    public static let gpsAltitudeRef = ExifTag(0x0005)
    public static let gpsAltitude = ExifTag(0x0006)
}
