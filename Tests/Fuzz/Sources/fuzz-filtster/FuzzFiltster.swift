import DarkroomAdjustments
import FuzzSupport

/// The input is `com.shinobicontrols.filster` 1.0 data (a keyed archive). Properties: typed
/// refusals; encode → decode is the identity on the operations and on the settings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFiltster(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        checkEditor(FiltsterSettings.identifier, version: "1.0", data: bytes)
        guard bytes.count <= FiltsterSettings.maxDataBytes, let settings = try? FiltsterSettings(archive: bytes) else {
            return
        }
        let again = try? FiltsterSettings(archive: settings.archive())
        require(again == settings, "settings \(settings) came back as \(String(describing: again))")
    }
}
