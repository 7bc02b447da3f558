import ByteStreams
import Foundation

/// Listing and removal for the orphan cleanup. An unfinished upload is a `FileUpload`
/// temporary (`.NAME.XXXXXXXXXXXX.partial`) beside the object it would have become.
extension StorageRoot {
    public func list(under prefix: String, modifiedBefore cutoff: Date) throws(StreamError) -> [StoredObject] {
        let folder = path + "/" + prefix
        guard let walker = FileManager.default.enumerator(atPath: folder) else {
            throw StreamError(
                code: .unavailable, object: prefix + "/", message: "cannot list it; is the share mounted?")
        }
        var found: [StoredObject] = []
        while let relative = walker.nextObject() as? String {
            let attributes = walker.fileAttributes ?? [:]
            guard attributes[.type] as? FileAttributeType == .typeRegular,
                let modified = attributes[.modificationDate] as? Date, modified < cutoff
            else { continue }
            let name = prefix + "/" + relative
            found.append(Self.storedObject(named: name))
        }
        return found.sorted { $0.name < $1.name }
    }

    public func remove(_ name: String) throws(StreamError) {
        let key: StorageKey
        do {
            key = try StorageKey(name)
        } catch {
            throw StreamError(code: .outsideStorage, object: name, message: error.message)
        }
        let file = try absolutePath(of: key)
        guard unlink(file) == 0 || errno == ENOENT else {
            // Already gone (another cleaner, or removed by hand) is fine; anything else is not.
            throw .system(errno, object: name, doing: "cannot delete it")
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
