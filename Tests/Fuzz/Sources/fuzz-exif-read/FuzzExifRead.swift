import DarkroomMetadata
import FuzzSupport

/// The input is an APP1 payload (`Exif\0\0` + TIFF), as `JPEGHeader.exifPayload` hands it over.
/// Properties: reading never throws or traps; what it returns is in range (orientation 1…8,
/// latitude within ±90°, longitude within ±180°, finite altitude); warnings stay few.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExifRead(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        let result = MetadataReader.read(app1Payload: bytes)
        let metadata = result.metadata
        require((1...8).contains(metadata.orientation), "orientation \(metadata.orientation)")
        if let latitude = metadata.latitude { require(abs(latitude) <= 90, "latitude \(latitude)") }
        if let longitude = metadata.longitude { require(abs(longitude) <= 180, "longitude \(longitude)") }
        if let altitude = metadata.altitude { require(altitude.isFinite, "altitude \(altitude)") }
        if let date = metadata.creationDate { require(date.timeIntervalSince1970.isFinite, "date \(date)") }
        // libexif's messages are capped at 32 plus a count; the fields add at most one each.
        require(result.warnings.count <= 48, "\(result.warnings.count) warnings")
    }
}
