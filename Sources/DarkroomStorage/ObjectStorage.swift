import ByteStreams
import Foundation

/// The seam between darkroom and where its objects live. Imaging, import and the queue see
/// only this and `StorageLayout`; the local filesystem (`StorageRoot`) implements it today,
/// an object store can tomorrow. Keys come from `StorageLayout` or from the database.
public protocol ObjectStorage: Sendable {
    /// Where the objects live, for messages ("/srv/darkroom", "s3://bucket/prefix").
    var location: String { get }
    /// Whether the storage can be reached right now (a share can go away under a worker).
    var isAvailable: Bool { get }
    /// A stream of the object's bytes, front to back. A missing object is `.notFound`.
    func openForReading(_ key: StorageKey) throws(StreamError) -> any ByteSource
    /// Lends `body` streams of one object, each from its start (a header pass, then the
    /// decode), all of the object as it was opened. An object store's objects never change
    /// under their key, so the default opens it by key each time; a local file is opened once.
    func withObject<T>(
        _ key: StorageKey, _ body: (_ stream: () throws(StreamError) -> any ByteSource) throws -> T
    ) throws -> T
    /// Starts writing `key`: nothing is visible under it until the upload is committed, and an
    /// aborted (or dropped) upload leaves nothing behind. A committed upload replaces the object.
    func beginPublishing(_ key: StorageKey) throws(StreamError) -> any ObjectUpload
    func exists(_ key: StorageKey) throws(StreamError) -> Bool
    /// A local folder for scratch files of running renders (spills); never published.
    var scratchDirectory: String { get }
    /// Memory one open reader or upload holds beyond what the codec hands it (a read-ahead,
    /// an upload part), so render budgets can count it.
    var bufferedBytesPerStream: Int { get }
    /// Objects and unfinished uploads under `prefix` (a folder of the layout) last changed
    /// before `cutoff`, for the orphan cleanup.
    func list(under prefix: String, modifiedBefore cutoff: Date) throws(StreamError) -> [StoredObject]
    /// Deletes an object or unfinished upload by the name `list` gave it; one already gone is
    /// not an error.
    func remove(_ name: String) throws(StreamError)
    /// The key of a local file that already is one of this storage's objects (an import then
    /// registers it in place), or nil.
    func key(ofLocalFile path: String) -> StorageKey?
}

/// One object, or an upload that never finished, found by `ObjectStorage.list`.
public struct StoredObject: Sendable, Hashable {
    /// What the storage calls it: the key, or an unfinished upload's temporary name. Report it,
    /// and pass it back to `remove`.
    public var name: String
    /// The object it is, or would have become; nil when the name makes no valid key.
    public var key: StorageKey?
    public var isUnfinishedUpload: Bool

    public init(name: String, key: StorageKey?, isUnfinishedUpload: Bool) {
        self.name = name
        self.key = key
        self.isUnfinishedUpload = isUnfinishedUpload
    }
}

extension ObjectStorage {
    public func withObject<T>(
        _ key: StorageKey, _ body: (_ stream: () throws(StreamError) -> any ByteSource) throws -> T
    ) throws -> T {
        try body { () throws(StreamError) in try openForReading(key) }
    }

    /// Publishes `key` from what `body` writes into the upload: committed when `body` returns,
    /// aborted when it throws. Returns the bytes committed.
    @discardableResult
    public func publish(_ key: StorageKey, _ body: (any ObjectUpload) throws -> Void) throws -> Int {
        let upload = try beginPublishing(key)
        do {
            try body(upload)
            return try upload.commit()
        } catch {
            upload.abort()
            throw error
        }
    }
}
