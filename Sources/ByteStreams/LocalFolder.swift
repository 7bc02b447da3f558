import CSystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A folder held open by its descriptor, which it owns: every file and folder under it is
/// reached from that descriptor, beneath it, through no symlink. So no name checked earlier is
/// looked up again by path, and a symlink swapped in meanwhile leads nowhere (issue 31).
/// Lent only inside `with…` calls.
public final class LocalFolder {
    let descriptor: Int32
    /// The folder as messages name it: the root's path, or a folder's path from the root.
    public let name: String
    private let isRoot: Bool

    private init(owning descriptor: Int32, name: String, isRoot: Bool = false) {
        self.descriptor = descriptor
        self.name = name
        self.isRoot = isRoot
    }

    deinit { close(descriptor) }

    /// Lends `body` the folder at `path`, which is trusted as given (the storage root itself).
    public static func with<T>(path: String, _ body: (LocalFolder) throws(StreamError) -> T) throws(StreamError) -> T {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(errno, object: path, doing: "cannot open the folder") }
        return try body(LocalFolder(owning: descriptor, name: path, isRoot: true))
    }

    /// Lends `body` the folder `relative` beneath this one; with `creating`, the folders missing
    /// on the way are made (`mkdirat`, in the folder above each). `name` is what errors call
    /// the object this is for.
    public func withFolder<T>(
        _ relative: String, creating: Bool, name: String, _ body: (LocalFolder) throws(StreamError) -> T
    ) throws(StreamError) -> T {
        let folder = try creating ? makeFolders(relative, object: name) : openFolder(relative, object: name)
        return try body(folder)
    }

    /// The file `relative` beneath this folder, for reading.
    public func openFile(_ relative: String, name: String) throws(StreamError) -> FileSource {
        let descriptor = openBeneath(relative, flags: O_RDONLY)
        guard descriptor >= 0 else { throw refusal(errno, object: name, doing: "cannot open it") }
        return try FileSource(owning: descriptor, name: name)
    }

    /// An upload of `file` (one name, no slash) into this folder.
    public func beginUpload(_ file: String, name: String) throws(StreamError) -> FileUpload {
        try FileUpload(in: self, file: file, name: name)
    }

    /// The file or folder `relative` beneath this folder as `fstatat` sees it (not following a
    /// final symlink: the caller refuses one), or nil when there is none.
    public func status(of relative: String, name: String) throws(StreamError) -> stat? {
        let (folderPath, file) = Self.split(relative)
        var parent = self
        if let folderPath {
            do {
                parent = try openFolder(folderPath, object: name)
            } catch  where error.code == .notFound {
                return nil
            }
        }
        var info = stat()
        guard fstatat(parent.descriptor, file, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            let number = errno
            if number == ENOENT || number == ENOTDIR { return nil }
            throw refusal(number, object: name, doing: "cannot look it up")
        }
        return info
    }

    /// Deletes the file `file` (one name) of this folder; a symlink is removed, never followed.
    public func remove(_ file: String, name: String) throws(StreamError) {
        guard unlinkat(descriptor, file, 0) == 0 else { throw .system(errno, object: name, doing: "cannot delete it") }
    }

    /// Whether this process may create files in the folder.
    public var isWritable: Bool { faccessat(descriptor, ".", W_OK, 0) == 0 }

    /// Every regular file under this folder (symlinks neither listed nor followed), with its
    /// path relative to it and when it last changed (seconds since 1970).
    public func files() throws(StreamError) -> [(path: String, modified: Double)] {
        var found: [(path: String, modified: Double)] = []
        try collectFiles(prefix: "", into: &found)
        return found
    }

    // MARK: Beneath, no symlinks

    /// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`; where the kernel has no openat2, the
    /// same rule by walking one name at a time with `O_NOFOLLOW`. -1 and errno on failure:
    /// ELOOP for a symlink on the way, EXDEV for a name that would climb out.
    func openBeneath(_ relative: String, flags: Int32, mode: mode_t = 0) -> Int32 {
        // Not O_NOFOLLOW here: with O_DIRECTORY it turns a final symlink's ELOOP into ENOTDIR.
        let opened = dr_openat2(
            descriptor, relative, UInt64(UInt32(bitPattern: flags | O_CLOEXEC)), UInt64(mode),
            UInt64(DR_RESOLVE_BENEATH | DR_RESOLVE_NO_SYMLINKS))
        guard opened < 0, errno == ENOSYS else { return opened }
        return walkBeneath(relative, flags: flags | O_NOFOLLOW | O_CLOEXEC, mode: mode)
    }

    /// The fallback, apart so tests can hold it to openat2's answers on a kernel that has it.
    func walkBeneath(_ relative: String, flags: Int32, mode: mode_t) -> Int32 {
        let names = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !names.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            errno = EXDEV
            return -1
        }
        var current = descriptor
        for (index, name) in names.enumerated() {
            let last = index == names.count - 1
            let next = openat(current, name, last ? flags : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, mode)
            var number = errno
            // O_NOFOLLOW | O_DIRECTORY on a symlink says ENOTDIR; say what it is.
            if next < 0, number == ENOTDIR, Self.isSymlink(current, name) { number = ELOOP }
            if current != descriptor { close(current) }
            guard next >= 0 else {
                errno = number
                return -1
            }
            current = next
        }
        return current
    }

    private static func isSymlink(_ folder: Int32, _ name: String) -> Bool {
        var info = stat()
        return fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// What messages call `relative` beneath this folder.
    private func named(_ relative: String) -> String { isRoot ? relative : name + "/" + relative }

    private func openFolder(_ relative: String, object: String) throws(StreamError) -> LocalFolder {
        let opened = openBeneath(relative, flags: O_RDONLY | O_DIRECTORY)
        guard opened >= 0 else {
            throw refusal(errno, object: object, doing: "cannot open the folder \(named(relative))")
        }
        return LocalFolder(owning: opened, name: named(relative))
    }

    /// One name at a time: a name another process makes meanwhile is fine, a symlink is not.
    private func makeFolders(_ relative: String, object: String) throws(StreamError) -> LocalFolder {
        var current = self
        for name in relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init) {
            if mkdirat(current.descriptor, name, 0o777) != 0, errno != EEXIST {
                throw refusal(errno, object: object, doing: "cannot create the folder \(current.named(name))")
            }
            current = try current.openFolder(name, object: object)
        }
        return current
    }

    private func collectFiles(prefix: String, into found: inout [(path: String, modified: Double)]) throws(StreamError)
    {
        // fdopendir takes its descriptor over; closedir closes that copy, not ours.
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0, let stream = fdopendir(copy) else {
            let number = errno
            if copy >= 0 { close(copy) }
            throw .system(number, object: name + "/", doing: "cannot list it")
        }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard entryName != ".", entryName != ".." else { continue }
            var info = stat()
            guard fstatat(descriptor, entryName, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let path = prefix + entryName
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                #if canImport(Darwin)
                    let modified = info.st_mtimespec
                #else
                    let modified = info.st_mtim
                #endif
                found.append((path, Double(modified.tv_sec) + Double(modified.tv_nsec) / 1e9))
            case S_IFDIR:
                // A folder removed meanwhile (an asset's renders, cleaned) has nothing to list.
                do {
                    let folder = try openFolder(entryName, object: named(entryName) + "/")
                    try folder.collectFiles(prefix: path + "/", into: &found)
                } catch  where error.code == .notFound {
                    continue
                }
            default: continue
            }
        }
    }

    /// A beneath-resolution failure as the storage reports it: a symlink or a climb out is
    /// refused for good, anything else is the system's error.
    func refusal(_ number: Int32, object: String, doing what: String) -> StreamError {
        switch number {
        case ELOOP:
            StreamError(
                code: .symlinkInPath, object: object,
                message:
                    "\(what): the path goes through a symbolic link, which the storage never follows; replace the link with the folder or file itself",
                systemErrno: number)
        case EXDEV:
            StreamError(
                code: .outsideStorage, object: object, message: "\(what): the path leads outside the storage root",
                systemErrno: number)
        default:
            .system(number, object: object, doing: what)
        }
    }

    /// "a/b/c" → ("a/b", "c"); "c" → (nil, "c").
    static func split(_ relative: String) -> (folder: String?, file: String) {
        guard let slash = relative.lastIndex(of: "/") else { return (nil, relative) }
        return (String(relative[..<slash]), String(relative[relative.index(after: slash)...]))
    }
}
