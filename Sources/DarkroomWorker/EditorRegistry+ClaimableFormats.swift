import DarkroomAdjustments
import DarkroomDatabase

extension EditorRegistry {
    /// The formats a worker with these editors claims: each editor's identifier, any version
    /// up to the one it writes. Newer versions wait for a newer worker (a rolling upgrade);
    /// older ones are claimed, and the editor either reads them or fails them at once, because
    /// no newer worker will read them either. Identifiers no editor knows wait too, and show in
    /// `darkroom.waiting_for_editor`. The database applies the rule (`darkroom.can_run`).
    public var claimableFormats: [ClaimableFormat] {
        editors.values
            .map {
                ClaimableFormat(
                    identifier: $0.formatIdentifier, minVersion: Self.lowestVersion, maxVersion: $0.currentVersion.text)
            }
            .sorted { $0.identifier < $1.identifier }
    }

    /// The lowest version semver allows.
    static let lowestVersion = "0.0.0-0"
}
