/// A HEIF `Exif` item as a JPEG APP1 payload, so the one EXIF reader and the one EXIF rewrite
/// serve both formats.
///
/// The item starts with a big-endian 32-bit offset to the TIFF header, counted from the end of
/// those 4 bytes (ISO/IEC 23008-12 A.2.1): iPhones write 6 (an `Exif\0\0` sits between),
/// libheif 0, some Android phones 10. The payload is `Exif\0\0` + the TIFF bytes, which is
/// what libexif needs (it finds nothing in bare TIFF bytes).
public enum HEIFExifBlock {
    public static let app1Header: [UInt8] = Array("Exif".utf8) + [0, 0]

    /// The APP1 payload, or nil with the reason when no TIFF header can be found. When the
    /// offset does not lead to one, the first TIFF header after the offset field is taken
    /// (libheif's own writer searches the same way).
    public static func app1Payload(fromItem item: [UInt8]) -> (payload: [UInt8]?, problem: String?) {
        guard item.count >= 4 + 8 else {
            return (nil, "the Exif item has \(item.count) bytes, too few for its offset and a TIFF header")
        }
        let offset = Int(item[0]) << 24 | Int(item[1]) << 16 | Int(item[2]) << 8 | Int(item[3])
        let declared = 4 + offset
        if declared <= item.count - 8, isTIFFHeader(item, at: declared) {
            return (app1Header + item[declared...], nil)
        }
        guard let found = (4...(item.count - 8)).first(where: { isTIFFHeader(item, at: $0) }) else {
            return (nil, "the Exif item holds no TIFF header (its offset field says \(offset))")
        }
        return (app1Header + item[found...], nil)
    }

    private static func isTIFFHeader(_ bytes: [UInt8], at index: Int) -> Bool {
        let magic = bytes[index..<(index + 4)]
        return magic.elementsEqual([0x4d, 0x4d, 0x00, 0x2a]) || magic.elementsEqual([0x49, 0x49, 0x2a, 0x00])
    }
}
