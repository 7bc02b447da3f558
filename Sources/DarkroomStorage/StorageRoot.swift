import ByteStreams
import Foundation

/// The local filesystem as an `ObjectStorage`: a folder every key is relative to
/// (`DARKROOM_STORAGE`), laid out by `StorageLayout`. Nothing is ever read or written outside
/// it: keys are checked when made, and symlinks are resolved before every use.
public struct StorageRoot: ObjectStorage {
    /// Absolute, symlinks resolved.
    public let path: String

    public init(_ path: String) throws(StorageError) {
        guard !path.isEmpty else {
            throw StorageError(
                code: .notConfigured, message: "no storage root given; set DARKROOM_STORAGE or pass --storage",
                path: path)
        }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StorageError(
                code: .unavailable,
                message: "the storage root does not exist or is not a folder; create it or mount the share",
                path: absolute)
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

    /// Makes the layout's folders and checks that renders can be written.
    public func prepare() throws(StorageError) {
        for folder in StorageLayout.folders {
            do {
                try FileManager.default.createDirectory(atPath: path + "/" + folder, withIntermediateDirectories: true)
            } catch {
                throw StorageError(
                    code: .unavailable, message: "cannot create \(folder)/: \(error.localizedDescription)", path: path)
            }
        }
        guard access(path + "/" + StorageLayout.rendersFolder, W_OK) == 0 else {
            throw StorageError(
                code: .unavailable, message: "\(StorageLayout.rendersFolder)/ is not writable by this user", path: path)
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
        let file = try absolutePath(of: key)
        do {
            return try FileSource(path: file, name: key.rawValue)
        } catch  where error.code == .notFound && !isAvailable {
            throw unavailable(key)
        }
    }

    public func beginPublishing(_ key: StorageKey) throws(StreamError) -> any ObjectUpload {
        let file = try absolutePath(of: key)
        let folder = (file as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw StreamError(
                code: isAvailable ? .io : .unavailable, object: key.rawValue,
                message: "cannot create its folder: \(error.localizedDescription)")
        }
        return try FileUpload(finalPath: file, name: key.rawValue)
    }

    public func exists(_ key: StorageKey) throws(StreamError) -> Bool {
        let file = try absolutePath(of: key)
        var info = stat()
        if stat(file, &info) == 0 { return true }
        let number = errno
        guard number == ENOENT || number == ENOTDIR else {
            throw .system(number, object: key.rawValue, doing: "cannot look it up")
        }
        guard isAvailable else { throw unavailable(key) }
        return false
    }

    public func key(ofLocalFile path: String) -> StorageKey? {
        relativePath(of: path).flatMap { try? StorageKey($0) }
    }

    // MARK: Paths

    /// The absolute path of a stored relative path, refusing anything that could leave the
    /// root: absolute paths, `..`, empty components, and symlinks that point outside.
    public func resolve(_ relative: String) throws(StorageError) -> String {
        try resolve(StorageKey(relative))
    }

    public func resolve(_ key: StorageKey) throws(StorageError) -> String {
        let joined = path + "/" + key.rawValue
        // Resolve symlinks on whatever part exists, then check containment.
        let resolved = URL(fileURLWithPath: joined).resolvingSymlinksInPath().path
        guard resolved == path || resolved.hasPrefix(path + "/") else {
            throw StorageError(
                code: .outsideRoot,
                message: "the stored path \"\(key)\" leads outside the storage root (through a symlink)", path: joined)
        }
        return joined
    }

    /// The stored (relative) form of an absolute path inside the root, or nil if outside.
    public func relativePath(of absolute: String) -> String? {
        let resolved = URL(fileURLWithPath: absolute).standardizedFileURL.resolvingSymlinksInPath().path
        guard resolved.hasPrefix(path + "/") else { return nil }
        return String(resolved.dropFirst(path.count + 1))
    }

    /// Pure check of a stored path's shape.
    public static func checkRelative(_ relative: String) throws(StorageError) {
        _ = try StorageKey(relative)
    }

    func absolutePath(of key: StorageKey) throws(StreamError) -> String {
        do {
            return try resolve(key)
        } catch {
            throw StreamError(code: .outsideStorage, object: key.rawValue, message: error.message)
        }
    }

    func unavailable(_ key: StorageKey) -> StreamError {
        StreamError(
            code: .unavailable, object: key.rawValue,
            message: "the storage root \(path) is not available; is the share mounted?")
    }
}
