import DarkroomAdjustments
import FuzzSupport

/// The input is `com.shinobicontrols.chromakey` 1.0 data (a keyed archive). Properties: typed
/// refusals; encode → decode is the identity on the operations and on the settings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChromaKey(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        checkEditor(ChromaKeySettings.identifier, version: "1.0", data: bytes)
        guard bytes.count <= ChromaKeySettings.maxDataBytes, let settings = try? ChromaKeySettings(archive: bytes)
        else { return }
        let again = try? ChromaKeySettings(archive: settings.archive())
        require(again == settings, "settings \(settings) came back as \(String(describing: again))")
    }
}
