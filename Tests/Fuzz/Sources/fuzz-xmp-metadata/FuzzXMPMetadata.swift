import DarkroomMetadata
import FuzzSupport

/// The input is an XMP packet, as a JPEG's XMP APP1 segment (after its signature) or a HEIF's
/// XMP item hands it over. Properties: reading throws only its typed error; a date is finite, a
/// position within ±90°/±180° and whole (both coordinates or neither); warnings stay few.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMPMetadata(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        let xmp: XMPMetadata
        do {
            xmp = try XMPMetadata.read(packet: bytes)
        } catch {
            return  // typed throws: an XMPMetadataError; the photo keeps its EXIF's metadata
        }
        if let date = xmp.creationDate {
            require(date.timeIntervalSince1970.isFinite, "date \(date)")
            require(xmp.dateProperty != nil, "a date without the property that gave it")
        }
        require((xmp.latitude == nil) == (xmp.longitude == nil), "half a position")
        if let latitude = xmp.latitude { require(abs(latitude) <= 90, "latitude \(latitude)") }
        if let longitude = xmp.longitude { require(abs(longitude) <= 180, "longitude \(longitude)") }
        require(xmp.warnings.count <= 4, "\(xmp.warnings.count) warnings")
    }
}
