import DarkroomAdjustments
import FuzzSupport

/// The input is `io.darkroom.pipeline` data. Properties (FuzzSupport/EditorRoundTrip.swift):
/// typed refusals; encode → decode is the identity on the operations it accepts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        checkEditor(PipelineFormat.identifier, version: "1.0.0", data: bytes)
    }
}
