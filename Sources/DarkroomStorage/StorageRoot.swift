import ByteStreams
import Foundation

/// The local filesystem as an `ObjectStorage`: a folder every key is relative to
/// (`DARKROOM_STORAGE`), laid out by `StorageLayout`. Nothing is ever read or written outside
/// it: keys are checked when made, and every open, create, rename and delete starts from the
/// root's descriptor and goes beneath it through no symlink (`LocalFolder`), so no name is
/// checked first and looked up again later.
public struct StorageRoot: ObjectStorage {
    /// Absolute, symlinks resolved.
    public let path: String

    public init(_ path: String) throws(StorageError) {
        guard !path.isEmpty else {
            throw StorageError(
                code: .notConfigured, message: "no storage root given; set DARKROOM_STORAGE or pass --storage",
                object: path)
        }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StorageError(
                code: .unavailable,
                message: "the storage root does not exist or is not a folder; create it or mount the share",
                object: absolute)
        }
        self.path = URL(fileURLWithPath: absolute).resolvingSymlinksInPath().path
    }

    /// Creates the root (and its folders) if needed, then opens it.
    public static func create(_ path: String) throws(StorageError) -> StorageRoot {
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let root = try StorageRoot(path)
        try root.prepare()
        return root
    }

    /// Makes the layout's folders (refusing a symlink in place of one) and checks that renders
    /// can be written.
    public func prepare() throws(StorageError) {
        let rendersWritable: Bool
        do {
            rendersWritable = try withRoot { root throws(StreamError) in
                var writable = false
                for folder in StorageLayout.folders {
                    let isWritable = try root.withFolder(folder, creating: true, name: folder + "/") { $0.isWritable }
                    if folder == StorageLayout.rendersFolder { writable = isWritable }
                }
                return writable
            }
        } catch {
            throw StorageError(
                code: error.code == .symlinkInPath ? .symlinkInPath : .unavailable,
                message: "cannot create \(error.object): \(error.message)", object: path)
        }
        guard rendersWritable else {
            throw StorageError(
                code: .unavailable, message: "\(StorageLayout.rendersFolder)/ is not writable by this user",
                object: path)
        }
    }

    public var location: String { path }

    /// Whether the root is there right now (a share can go away under a running worker).
    public var isAvailable: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(
            atPath: path + "/" + StorageLayout.rendersFolder, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    public var scratchDirectory: String { path + "/" + StorageLayout.scratchFolder }

    /// Files are read into the decoder's buffer and written from the encoder's: nothing more.
    public var bufferedBytesPerStream: Int { 0 }

    // MARK: Objects

    public func openForReading(_ key: StorageKey) throws(StreamError) -> any ByteSource {
        try openFile(key)
    }

    /// Opens the file once: every stream `body` asks for reads that file, from its start.
    public func withObject<T>(
        _ key: StorageKey, _ body: (_ stream: () throws(StreamError) -> any ByteSource) throws -> T
    ) throws -> T {
        let file = try openFile(key)
        return try body { () throws(StreamError) in try file.again() }
    }

    public func beginPublishing(_ key: StorageKey) throws(StreamError) -> any ObjectUpload {
        let (folder, file) = Self.split(key)
        do {
            return try withRoot { root throws(StreamError) in
                guard let folder else { return try root.beginUpload(file, name: key.rawValue) }
                return try root.withFolder(folder, creating: true, name: key.rawValue) { parent throws(StreamError) in
                    try parent.beginUpload(file, name: key.rawValue)
                }
            }
        } catch  where error.code == .notFound || error.code == .io {
            throw isAvailable ? error : unavailable(key)
        }
    }

    public func exists(_ key: StorageKey) throws(StreamError) -> Bool {
        let found = try withRoot { root throws(StreamError) in try root.status(of: key.rawValue, name: key.rawValue) }
        guard let found else {
            guard isAvailable else { throw unavailable(key) }
            return false
        }
        guard found.st_mode & S_IFMT != S_IFLNK else {
            throw StreamError(
                code: .symlinkInPath, object: key.rawValue,
                message: "it is a symbolic link, which the storage never follows; replace it with the file itself")
        }
        return true
    }

    public func key(ofLocalFile path: String) -> StorageKey? {
        relativePath(of: path).flatMap { try? StorageKey($0) }
    }

    // MARK: Paths

    /// The stored (relative) form of an absolute path inside the root, or nil if outside.
    public func relativePath(of absolute: String) -> String? {
        let resolved = URL(fileURLWithPath: absolute).standardizedFileURL.resolvingSymlinksInPath().path
        guard resolved.hasPrefix(path + "/") else { return nil }
        return String(resolved.dropFirst(path.count + 1))
    }

    /// Lends `body` the root's folder, opened for this call: a share mounted again meanwhile is
    /// the one used.
    func withRoot<T>(_ body: (LocalFolder) throws(StreamError) -> T) throws(StreamError) -> T {
        do {
            return try LocalFolder.with(path: path, body)
        } catch  where error.object == path {
            throw StreamError(
                code: .unavailable, object: error.object,
                message: "the storage root is not available (\(error.message)); is the share mounted?",
                systemErrno: error.systemErrno)
        }
    }

    func openFile(_ key: StorageKey) throws(StreamError) -> FileSource {
        do {
            return try withRoot { root throws(StreamError) in try root.openFile(key.rawValue, name: key.rawValue) }
        } catch  where error.code == .notFound && !isAvailable {
            throw unavailable(key)
        }
    }

    /// A key's folder and file name ("renders/17", "241.jpg"); no folder for a key at the top.
    static func split(_ key: StorageKey) -> (folder: String?, file: String) {
        (key.rawValue.lastIndex(of: "/").map { String(key.rawValue[..<$0]) }, String(key.name))
    }

    func unavailable(_ key: StorageKey) -> StreamError {
        StreamError(
            code: .unavailable, object: key.rawValue,
            message: "the storage root \(path) is not available; is the share mounted?")
    }
}
