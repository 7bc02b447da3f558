import Foundation

/// The folder every stored path is relative to (`DARKROOM_STORAGE`). Originals live under
/// `originals/`, renders under `renders/`, spill files under `tmp/`. Nothing is ever read
/// or written outside it: relative paths are checked before use, symlinks included.
public struct StorageRoot: Sendable {
    /// Absolute, symlinks resolved.
    public let path: String

    public init(_ path: String) throws {
        guard !path.isEmpty else {
            throw StorageError(code: .notConfigured, message: "no storage root given; set DARKROOM_STORAGE or pass --storage", path: path)
        }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StorageError(code: .unavailable, message: "the storage root does not exist or is not a folder; create it or mount the share", path: absolute)
        }
        self.path = URL(fileURLWithPath: absolute).resolvingSymlinksInPath().path
    }

    /// Creates the root (and its folders) if needed, then opens it.
    public static func create(_ path: String) throws -> StorageRoot {
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let root = try StorageRoot(path)
        try root.prepare()
        return root
    }

    /// Makes `originals/`, `renders/` and `tmp/` and checks the root is writable.
    public func prepare() throws {
        for folder in ["originals", "renders", "tmp"] {
            do {
                try FileManager.default.createDirectory(atPath: path + "/" + folder, withIntermediateDirectories: true)
            } catch {
                throw StorageError(code: .unavailable, message: "cannot create \(folder)/: \(error.localizedDescription)", path: path)
            }
        }
        guard access(path + "/renders", W_OK) == 0 else {
            throw StorageError(code: .unavailable, message: "renders/ is not writable by this user", path: path)
        }
    }

    /// Whether the root is there right now (a share can go away under a running worker).
    public var isAvailable: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path + "/renders", isDirectory: &isDirectory) && isDirectory.boolValue
    }

    public var spillDirectory: String { path + "/tmp" }

    /// The absolute path of a stored relative path, refusing anything that could leave the
    /// root: absolute paths, `..`, empty components, and symlinks that point outside.
    public func resolve(_ relative: String) throws -> String {
        try Self.checkRelative(relative)
        let joined = path + "/" + relative
        // Resolve symlinks on whatever part exists, then check containment.
        let resolved = URL(fileURLWithPath: joined).resolvingSymlinksInPath().path
        guard resolved == path || resolved.hasPrefix(path + "/") else {
            throw StorageError(code: .outsideRoot, message: "the stored path \"\(relative)\" leads outside the storage root (through a symlink)", path: joined)
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
    public static func checkRelative(_ relative: String) throws {
        let problem: String?
        if relative.isEmpty {
            problem = "it is empty"
        } else if relative.hasPrefix("/") {
            problem = "it is absolute; stored paths are relative to the storage root"
        } else if relative.utf8.contains(0) {
            problem = "it contains a NUL byte"
        } else if relative.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) {
            problem = "it contains '..', '.' or an empty component"
        } else {
            problem = nil
        }
        if let problem {
            throw StorageError(code: .outsideRoot, message: "the stored path \"\(relative)\" is refused: \(problem)", path: relative)
        }
    }
}

public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case notConfigured = "storage_not_configured"
        case unavailable = "storage_unavailable"
        case outsideRoot = "path_outside_storage_root"
        case originalMissing = "original_missing"
        case io = "storage_io"
    }

    public var code: Code
    public var message: String
    public var path: String

    public init(code: Code, message: String, path: String) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
