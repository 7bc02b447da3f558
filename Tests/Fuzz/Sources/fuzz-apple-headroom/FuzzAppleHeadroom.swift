import FuzzSupport
import GainMaps

/// The input is an EXIF block (a JPEG APP1 payload). Properties: a refusal is a `GainMapError`
/// (typed throws); tags 33 and 48 that read are finite, and so is the headroom Apple's formula
/// makes of them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppleHeadroom(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        guard let tags = try? AppleHeadroom.makerNoteTags(exifPayload: bytes) else { return }
        require(tags.headroom.isFinite && tags.gain.isFinite, "tags \(tags)")
        let stops = AppleHeadroom.stops(tags)
        require(stops.isFinite, "stops \(stops)")
        if let metadata = try? AppleHeadroom.metadata(stops: stops) {
            require(metadata.alternateHeadroom == stops, "headroom \(metadata.alternateHeadroom), not \(stops)")
        }
    }
}
