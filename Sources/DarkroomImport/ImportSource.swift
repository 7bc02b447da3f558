import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The file an import reads, opened once and checked before a byte of it is read: a regular file
/// (a FIFO would hang the import, a device like `/dev/zero` read forever), reached by no symlink
/// that leads out of the folder it is in unless the operator allows it. Every later read goes
/// through the descriptor's own name in `/proc/self/fd` (`withPath`), so what is read is what
/// was checked, whatever is renamed or relinked meanwhile.
final class ImportSource {
    private let descriptor: Int32
    /// Names the checked file only while the descriptor is open: lent by `withPath`.
    private let path: String
    /// The file as the operator named it, for messages.
    let source: String
    /// Where the file is, symlinks resolved: tells a file already inside the storage root.
    let realPath: String

    init(_ source: String, followsSymlinks: Bool) throws {
        self.source = source
        let absolute = URL(fileURLWithPath: source).standardizedFileURL.path
        var link = stat()
        guard lstat(absolute, &link) == 0 else {
            let code = errno
            throw ImportError(
                code == ENOENT ? .fileNotFound : .unreadable, object: source,
                message: code == ENOENT ? "no such file; check the path" : "cannot be read: \(Self.reason(code))")
        }
        var target = absolute
        if (link.st_mode & S_IFMT) == S_IFLNK {
            guard let resolved = Self.resolved(absolute) else {
                throw ImportError(.fileNotFound, object: source, message: "is a symlink to nothing; check the path")
            }
            let folder = (absolute as NSString).deletingLastPathComponent
            let realFolder = Self.resolved(folder) ?? folder
            guard followsSymlinks || resolved.hasPrefix(realFolder.hasSuffix("/") ? realFolder : realFolder + "/")
            else {
                throw ImportError(
                    .notARegularFile, object: source,
                    message:
                        "is a symlink out of its folder (to \(resolved)); import that file itself, or pass --follow-symlinks"
                )
            }
            target = resolved
        }
        // Non-blocking: opening a FIFO for reading would wait for a writer; O_NOFOLLOW: the target
        // cannot turn into a symlink between the check and the open.
        let opened = open(target, Self.flags)
        guard opened >= 0 else {
            let code = errno
            throw ImportError(.unreadable, object: source, message: "cannot be opened: \(Self.reason(code))")
        }
        try Self.check(opened, source: source)
        descriptor = opened
        path = "/proc/self/fd/\(opened)"
        realPath = Self.resolved(target) ?? target
    }

    /// The file named `name` in `folder`, by the bytes of its name (one that is not UTF-8:
    /// `ImportName`); `source` names it in messages. A symlink by such a name is refused: the
    /// folder rule cannot be checked on a path that has no text.
    init(in folder: String, named name: [UInt8], source: String) throws {
        self.source = source
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else {
            let code = errno
            throw ImportError(
                code == ENOENT ? .fileNotFound : .unreadable, object: source,
                message: "its folder cannot be opened: \(Self.reason(code))")
        }
        defer { close(directory) }
        let opened = (name + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { openat(directory, $0.baseAddress!, Self.flags) }
        }
        guard opened >= 0 else {
            let code = errno
            if code == ELOOP {
                throw ImportError(
                    .notARegularFile, object: source,
                    message: "is a symlink whose name is not UTF-8; import the file it points to itself")
            }
            throw ImportError(
                code == ENOENT ? .fileNotFound : .unreadable, object: source,
                message: "cannot be opened: \(Self.reason(code))")
        }
        try Self.check(opened, source: source)
        descriptor = opened
        path = "/proc/self/fd/\(opened)"
        realPath = Self.resolved(path) ?? path
    }

    private static let flags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY

    /// Only a regular file is read (a FIFO would hang the import, a device read forever); on
    /// any refusal the descriptor is closed. Reads block from here on, as a regular file's do.
    private static func check(_ opened: Int32, source: String) throws {
        var status = stat()
        guard fstat(opened, &status) == 0 else {
            let code = errno
            close(opened)
            throw ImportError(.unreadable, object: source, message: "cannot be read: \(Self.reason(code))")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR:
            close(opened)
            throw ImportError(.isFolder, object: source, message: "is a folder; pass the photos inside it")
        default:
            close(opened)
            throw ImportError(
                .notARegularFile, object: source,
                message: "is not a regular file (a FIFO, socket or device); only photos' files are imported")
        }
        _ = fcntl(opened, F_SETFL, fcntl(opened, F_GETFL) & ~O_NONBLOCK)
    }

    deinit { close(descriptor) }

    /// Runs `body` with a path that reads the checked file, not whatever the name points at now;
    /// the path means nothing once `body` returns.
    func withPath<T>(_ body: (String) throws -> T) rethrows -> T {
        try withExtendedLifetime(self) { try body(path) }
    }

    private static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
