import ByteStreams
import Foundation

/// Listing and removal for the orphan cleanup. An unfinished upload is a `FileUpload`
/// temporary (`.NAME.XXXXXXXXXXXX.partial`) beside the object it would have become. Both go
/// through the root's descriptor like every other use: a symlinked folder is neither listed
/// nor emptied.
extension StorageRoot {
    public func list(under prefix: String, modifiedBefore cutoff: Date) throws(StreamError) -> [StoredObject] {
        let files = try withRoot { root throws(StreamError) in
            try root.withFolder(prefix, creating: false, name: prefix + "/") { folder throws(StreamError) in
                try folder.files()
            }
        }
        return files.filter { Date(timeIntervalSince1970: $0.modified) < cutoff }
            .map { Self.storedObject(named: prefix + "/" + $0.path) }.sorted { $0.name < $1.name }
    }

    public func remove(_ name: String) throws(StreamError) {
        let key: StorageKey
        do {
            key = try StorageKey(name)
        } catch {
            throw StreamError(code: .outsideStorage, object: name, message: error.message)
        }
        let (folder, file) = Self.split(key)
        do {
            try withRoot { root throws(StreamError) in
                guard let folder else { return try root.remove(file, name: name) }
                try root.withFolder(folder, creating: false, name: name) { parent throws(StreamError) in
                    try parent.remove(file, name: name)
                }
            }
        } catch  where error.code == .notFound {
            // Already gone (another cleaner, or removed by hand) is fine; anything else is not.
        }
    }

    /// What a listed file is: an object under its own key, or an unfinished upload of the key
    /// its temporary name says.
    static func storedObject(named name: String) -> StoredObject {
        let slash = name.lastIndex(of: "/")
        let file = name[(slash.map(name.index(after:)) ?? name.startIndex)...]
        if let final = FileUpload.finalName(ofTemporary: file) {
            let folder = slash.map { String(name[..<$0]) + "/" } ?? ""
            return StoredObject(name: name, key: try? StorageKey(folder + final), isUnfinishedUpload: true)
        }
        return StoredObject(name: name, key: try? StorageKey(name), isUnfinishedUpload: false)
    }
}
