import ByteStreams
import DarkroomStorage
import Foundation

/// The render files of a storage, for `Jobs/clean-orphaned-renders.sql`. The layout says which
/// job wrote each file (a name it did not build names no job and is never offered), the
/// storage says which are unfinished uploads, and each deletion goes back through the storage,
/// so nothing outside its renders is ever touched.
public struct StoredRenderFiles: RenderFileStore {
    public let storage: any ObjectStorage

    public init(storage: any ObjectStorage) {
        self.storage = storage
    }

    public func renderFiles(olderThan minimumAge: Duration) throws -> [RenderFileCandidate] {
        let cutoff = Date().addingTimeInterval(-(minimumAge / .seconds(1)))
        return try storage.list(under: StorageLayout.rendersFolder, modifiedBefore: cutoff).compactMap { object in
            guard let key = object.key, let output = StorageLayout.renderOutput(key) else { return nil }
            return RenderFileCandidate(path: object.name, jobID: output.jobID, isTemporary: object.isUnfinishedUpload)
        }
    }

    public func deleteRenderFile(_ path: String) throws {
        guard path.hasPrefix(StorageLayout.rendersFolder + "/") else {
            throw StorageError(
                code: .outsideRoot,
                message: "refusing to delete \(path): only files under \(StorageLayout.rendersFolder)/ are cleaned",
                object: path)
        }
        try storage.remove(path)
    }
}
