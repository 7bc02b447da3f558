import FuzzSupport
import GainMaps

/// The input is an MPF APP2 payload, or a whole JPEG. Properties: a refusal is a `GainMapError`
/// (typed throws); an index that reads writes a payload that reads back the same; a located gain
/// map lies inside the file and its metadata are valid.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMPF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        if let index = try? MPFIndex(app2Payload: bytes) {
            require(index.images.count <= MPFIndex.maxImages, "\(index.images.count) images")
            let again = try? MPFIndex(app2Payload: index.encoded())
            require(again == index, "encode → decode gave \(String(describing: again)), not \(index)")
        }
        guard let found = try? GainMapJPEG.locate(in: bytes) else { return }
        require(found.range.lowerBound >= 0 && found.range.upperBound <= bytes.count, "range \(found.range)")
        require((try? found.metadata.validated(.mpfIndex)) != nil, "invalid metadata \(found.metadata)")
    }
}
