import DarkroomDatabase
import DarkroomOperatorScripts
import Foundation

/// The render files under a storage root, for `Jobs/clean-orphaned-renders.sql`. Only regular
/// files inside `renders/` are listed, and each deletion goes through `StorageRoot.resolve`,
/// so a path from the database can never reach outside the root.
public struct RenderFiles: RenderFileStore {
    public let storage: StorageRoot

    public init(storage: StorageRoot) {
        self.storage = storage
    }

    public func renderFiles(olderThan minimumAge: Duration) throws -> [String] {
        let renders = storage.path + "/renders"
        let cutoff = Date().addingTimeInterval(-minimumAge.seconds)
        guard let walker = FileManager.default.enumerator(atPath: renders) else {
            throw StorageError(code: .unavailable, message: "cannot list renders/; is the share mounted?", path: renders)
        }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            let attributes = walker.fileAttributes ?? [:]
            guard attributes[.type] as? FileAttributeType == .typeRegular,
                  let modified = attributes[.modificationDate] as? Date, modified < cutoff else { continue }
            found.append("renders/" + relative)
        }
        return found.sorted()
    }

    public func deleteRenderFile(_ relativePath: String) throws {
        guard relativePath.hasPrefix("renders/") else {
            throw StorageError(code: .outsideRoot, message: "refusing to delete \(relativePath): only files under renders/ are cleaned", path: relativePath)
        }
        let absolute = try storage.resolve(relativePath)
        do {
            try FileManager.default.removeItem(atPath: absolute)
        } catch CocoaError.fileNoSuchFile {
            // Already gone (another cleaner, or the share was cleaned by hand): nothing to do.
        }
    }
}
