import FuzzSupport
import GainMaps

/// The input is ISO 21496-1 metadata (and, read again, a HEIF `tmap` item). Properties: a refusal
/// is a `GainMapError` (typed throws); metadata that read are valid, and encode to bytes that
/// read back the same values (to 32-bit fractions).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzISOGainMap(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        _ = try? ISOGainMapMetadata.decode(toneMapItem: bytes)
        guard case .metadata(let metadata, _)? = try? ISOGainMapMetadata.decode(bytes) else { return }
        require((try? metadata.validated(.iso21496)) != nil, "invalid metadata \(metadata)")
        guard let encoded = try? ISOGainMapMetadata.encode(metadata) else {
            require(false, "valid metadata \(metadata) do not encode")
            return
        }
        guard case .metadata(let again, _)? = try? ISOGainMapMetadata.decode(encoded) else {
            require(false, "its own encoding does not decode: \(metadata)")
            return
        }
        func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-6 * max(1, abs(b)) }
        for path in [\GainMapMetadata.gainMapMin, \.gainMapMax, \.gamma, \.baseOffset, \.alternateOffset] {
            for channel in 0..<3 {
                require(near(again[keyPath: path][channel], metadata[keyPath: path][channel]), "\(again) ≠ \(metadata)")
            }
        }
        require(near(again.baseHeadroom, metadata.baseHeadroom), "\(again) ≠ \(metadata)")
        require(near(again.alternateHeadroom, metadata.alternateHeadroom), "\(again) ≠ \(metadata)")
    }
}
