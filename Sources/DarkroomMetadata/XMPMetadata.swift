import GainMaps

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The capture date and location an XMP packet carries (a JPEG's XMP APP1 segment, a HEIF's
/// XMP item), for a photo whose EXIF has none: Lightroom and other editors write them there.
/// Pure and bounded: a packet of at most `maxPacketBytes`, scanned linearly (`XMPScanner`,
/// which expands no entity); a packet with a DTD is refused rather than scanned.
public struct XMPMetadata: Sendable, Equatable {
    public var creationDate: Date?
    /// The property that gave `creationDate`, e.g. `xmp:CreateDate`.
    public var dateProperty: String?
    /// Signed decimal degrees, south and west negative.
    public var latitude: Double?
    public var longitude: Double?
    /// Properties present but unusable, for the caller to log.
    public var warnings: [String] = []

    public init() {}

    /// As many bytes as any editor writes many times over; a JPEG's segment holds 64 KiB.
    public static let maxPacketBytes = 1 << 20

    /// The date properties, most specific first: when the photo was taken, then when its
    /// content was created, then when the file was.
    static let dateProperties: [(namespace: String, prefix: String, name: String)] = [
        (exifNamespace, "exif", "DateTimeOriginal"),
        ("http://ns.adobe.com/photoshop/1.0/", "photoshop", "DateCreated"),
        ("http://ns.adobe.com/xap/1.0/", "xmp", "CreateDate"),
    ]
    static let exifNamespace = "http://ns.adobe.com/exif/1.0/"

    /// - Throws: `XMPMetadataError` when the packet is too large or declares a DTD (where
    ///   entities would live). Absent or unusable properties are not errors: they are nil,
    ///   the unusable ones with a warning.
    public static func read(packet: [UInt8]) throws(XMPMetadataError) -> XMPMetadata {
        guard packet.count <= maxPacketBytes else {
            throw XMPMetadataError(
                code: .tooLarge,
                message:
                    "The XMP packet has \(packet.count) bytes, more than the \(maxPacketBytes) darkroom reads; its date and location are ignored.",
                context: ["packetBytes": String(packet.count)])
        }
        let scanner = XMPScanner(packet)
        if scanner.find(Array("<!DOCTYPE".utf8), from: 0) != nil || scanner.find(Array("<!ENTITY".utf8), from: 0) != nil
        {
            throw XMPMetadataError(
                code: .declaresDTD,
                message:
                    "The XMP packet declares a DTD, which XMP never needs and which could define entities; its date and location are ignored.",
                context: ["packetBytes": String(packet.count)])
        }
        var metadata = XMPMetadata()
        for property in dateProperties where metadata.creationDate == nil {
            guard let text = first(property.namespace, property.name, in: scanner) else { continue }
            let name = "\(property.prefix):\(property.name)"
            if let date = ExifDateTime.parse(text, offset: nil) {
                metadata.creationDate = date
                metadata.dateProperty = name
            } else {
                metadata.warnings.append(
                    "XMP \(name) \(text.prefix(64).debugDescription) is not a date and time; ignored.")
            }
        }
        let latitude = first(exifNamespace, "GPSLatitude", in: scanner)
        let longitude = first(exifNamespace, "GPSLongitude", in: scanner)
        if let latitude, let longitude {
            let north = XMPCoordinate.degrees(latitude, positive: "N", negative: "S", limit: 90)
            let east = XMPCoordinate.degrees(longitude, positive: "E", negative: "W", limit: 180)
            if let north, let east {
                (metadata.latitude, metadata.longitude) = (north, east)
            } else {
                metadata.warnings.append(
                    "XMP exif:GPSLatitude \(latitude.prefix(64).debugDescription) and exif:GPSLongitude \(longitude.prefix(64).debugDescription) are not a position; location ignored."
                )
            }
        }
        return metadata
    }

    /// The first value of `name` under any prefix bound to `namespace`.
    private static func first(_ namespace: String, _ name: String, in scanner: XMPScanner) -> String? {
        for prefix in scanner.prefixes(of: namespace) {
            if let value = scanner.values(prefix, name)?.first, !value.isEmpty { return value }
        }
        return nil
    }
}

/// XMP's GPS coordinate: `DDD,MM,SSk` or `DDD,MM.mmk`, `k` the hemisphere's letter (XMP
/// Specification Part 2, "GPSCoordinate").
enum XMPCoordinate {
    static func degrees(_ text: String, positive: Character, negative: Character, limit: Double) -> Double? {
        guard text.utf8.count <= 40, let hemisphere = text.last, hemisphere == positive || hemisphere == negative
        else { return nil }
        let parts = text.dropLast().split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        let numbers = parts.compactMap(decimal)
        guard numbers.count == parts.count, numbers[0] <= limit, numbers[1] < 60,
            numbers.dropFirst(2).allSatisfy({ $0 < 60 })
        else { return nil }
        let value = numbers[0] + numbers[1] / 60 + (numbers.count == 3 ? numbers[2] / 3600 : 0)
        guard value <= limit else { return nil }
        return hemisphere == negative ? -value : value
    }

    /// Digits with at most one decimal point; Swift's `Double(_:)` would also take "inf", "nan"
    /// and exponents.
    private static func decimal(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.utf8.count <= 16, text.filter({ $0 == "." }).count <= 1,
            text.allSatisfy({ $0 == "." || ("0"..."9").contains($0) })
        else { return nil }
        return Double(text)
    }
}
