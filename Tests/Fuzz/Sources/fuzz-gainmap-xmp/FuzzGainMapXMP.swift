import FuzzSupport
import GainMaps

/// The input is an XMP packet. Properties: a refusal is a `GainMapError` (typed throws); metadata
/// read from `hdrgm` are valid and the packet darkroom writes for them reads back the same; an
/// Apple headroom is above 1.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGainMapXMP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        if let adobe = try? GainMapXMP.adobe(bytes), let metadata = adobe.metadata {
            require((try? metadata.validated(.xmp)) != nil, "invalid metadata \(metadata)")
            let again = try? GainMapXMP.gainMapPacket(metadata)
            require(again != nil, "valid metadata \(metadata) do not write")
            let read = again.flatMap { try? GainMapXMP.adobe($0) }?.metadata
            require(read == metadata, "write → read gave \(String(describing: read)), not \(metadata)")
        }
        if let apple = try? GainMapXMP.apple(bytes), let headroom = apple.headroom {
            require(headroom > 1 && headroom.isFinite, "headroom \(headroom)")
        }
    }
}
