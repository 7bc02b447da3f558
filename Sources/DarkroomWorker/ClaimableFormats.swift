import DarkroomAdjustments
import DarkroomQueue

/// The formats a worker claims, from its editor registry: each editor's identifier, any
/// version up to the one it writes. Newer versions wait for a newer worker (a rolling
/// upgrade); older ones are claimed, and the editor either reads them or fails them at once,
/// because no newer worker will read them either. Identifiers no editor knows wait too, and
/// show in `darkroom.waiting_for_editor`.
public enum ClaimableFormats {
    /// "0.0.0-0" is the lowest version semver allows.
    static let lowest = "0.0.0-0"

    public static func from(_ registry: EditorRegistry) -> [ClaimableFormat] {
        registry.editors.values
            .map { ClaimableFormat(identifier: $0.formatIdentifier, minVersion: lowest, maxVersion: $0.currentVersion.text) }
            .sorted { $0.identifier < $1.identifier }
    }

    public static let standard: [ClaimableFormat] = from(.standard)

}
