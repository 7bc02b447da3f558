#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The methods are called read and write too: these reach the system calls.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
    #else
        Darwin.read(descriptor, buffer, count)
    #endif
}

private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
    #else
        Darwin.write(descriptor, bytes, count)
    #endif
}

/// Reads a local file through its descriptor, which it owns and closes.
public final class FileSource: ByteSource {
    public let objectName: String
    private let descriptor: Int32
    private var offset = 0
    /// Reads at its own offset (`pread`): a copy made by `again` shares the open file.
    private let positional: Bool

    /// Opens `path`; `name` is what errors call it (the storage key), the path by default.
    public convenience init(path: String, name: String? = nil) throws(StreamError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(errno, object: name ?? path, doing: "cannot open it") }
        try self.init(owning: descriptor, name: name ?? path)
    }

    /// Takes `descriptor` over (closed here, also when this throws).
    init(owning descriptor: Int32, name: String, positional: Bool = false) throws(StreamError) {
        objectName = name
        var info = stat()
        if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            throw StreamError(code: .io, object: name, message: "it is a folder, not a file", systemErrno: EISDIR)
        }
        self.descriptor = descriptor
        self.positional = positional
    }

    deinit { close(descriptor) }

    /// Another stream of the file this one opened, from its start, whatever its name leads to
    /// by now: a header pass and then the decode read the same file.
    public func again() throws(StreamError) -> FileSource {
        try Self.reading(copyOf: descriptor, name: objectName)
    }

    /// A stream of the file `descriptor` is open on, from its start, through a copy of the
    /// descriptor (the caller keeps its own): a decoding child's input.
    public static func reading(copyOf descriptor: Int32, name: String) throws(StreamError) -> FileSource {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw .system(errno, object: name, doing: "cannot read it again") }
        return try FileSource(owning: copy, name: name, positional: true)
    }

    public func withUnreadFile<Result, Failure: Error>(_ body: (Int32?) throws(Failure) -> Result) throws(Failure)
        -> Result
    { try body(offset == 0 ? descriptor : nil) }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let got =
                positional
                ? pread(descriptor, base, buffer.count, off_t(offset)) : systemRead(descriptor, base, buffer.count)
            if got >= 0 {
                offset += got
                return got
            }
            if errno == EINTR { continue }
            throw .system(errno, object: objectName, doing: "read failed", at: offset)
        }
    }
}

/// A local file that appears whole or not at all: written under a unique temporary name in
/// the same folder, then synced, renamed over the final name, and the folder synced, so a
/// crash leaves either nothing or a complete file (and at worst a `.partial` temporary for the
/// orphan cleanup). Every step goes through the folder's descriptor, which it owns: the
/// folder is looked up once, when the upload begins.
public final class FileUpload: ObjectUpload {
    public let objectName: String
    /// The final and the temporary file's names in the folder.
    private let fileName: String
    private let temporaryName: String
    private let folder: Int32
    private var descriptor: Int32
    private var written = 0
    private var state: State = .writing

    private enum State { case writing, committed, aborted }

    static let temporarySuffix = ".partial"

    /// Starts the temporary file beside `finalPath`, whose folder must exist.
    public convenience init(finalPath: String, name: String? = nil) throws(StreamError) {
        let (folderPath, file) = Self.split(finalPath)
        let folder = open(folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else {
            let number = errno
            if number == ENOENT {
                throw StreamError(
                    code: .notFound, object: name ?? finalPath, message: "the folder \(folderPath) does not exist",
                    systemErrno: number)
            }
            throw .system(number, object: name ?? finalPath, doing: "cannot open the folder \(folderPath)")
        }
        try self.init(owningFolder: folder, file: file, name: name ?? finalPath)
    }

    /// Starts the temporary file in `folder` (a copy of its descriptor is kept), to become `file`.
    convenience init(in folder: LocalFolder, file: String, name: String) throws(StreamError) {
        let copy = fcntl(folder.descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw .system(errno, object: name, doing: "cannot hold its folder open") }
        try self.init(owningFolder: copy, file: file, name: name)
    }

    /// Takes `folder` over (closed here, also when this throws).
    private init(owningFolder folder: Int32, file: String, name: String) throws(StreamError) {
        objectName = name
        fileName = file
        self.folder = folder
        var suffix = ""
        for _ in 0..<12 { suffix.append("abcdefghijklmnopqrstuvwxyz0123456789".randomElement()!) }
        temporaryName = ".\(file).\(suffix)\(Self.temporarySuffix)"
        // O_EXCL: never write over anything, not even a stale temporary; O_NOFOLLOW: nor through a link.
        let descriptor = openat(folder, temporaryName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            let number = errno
            close(folder)
            throw .system(number, object: name, doing: "cannot create a temporary file in its folder")
        }
        self.descriptor = descriptor
    }

    deinit {
        abort()
        close(folder)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(StreamError) {
        guard state == .writing else {
            throw StreamError(
                code: .io, object: objectName, message: "written after commit or abort (a bug in darkroom)")
        }
        try Self.write(bytes, to: descriptor, object: objectName, at: written)
        written += bytes.count
    }

    /// Writes all of `bytes` to `descriptor`, `offset` bytes into the object `object` names
    /// (for the error): an upload's file, in whichever process writes it.
    public static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, object: String, at offset: Int)
        throws(StreamError)
    {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let wrote = systemWrite(descriptor, base + done, bytes.count - done)
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else { throw .system(errno, object: object, doing: "write failed", at: offset + done) }
            done += wrote
        }
    }

    public func withUnwrittenFile<Result, Failure: Error>(_ body: (Int32?) throws(Failure) -> Result)
        throws(Failure) -> Result
    { try body(state == .writing && written == 0 ? descriptor : nil) }

    public func countWrittenElsewhere(_ bytes: Int) { written += bytes }

    @discardableResult
    public func commit() throws(StreamError) -> Int {
        guard state == .writing else {
            throw StreamError(
                code: .io, object: objectName, message: "committed twice or after abort (a bug in darkroom)")
        }
        // What another process wrote (`countWrittenElsewhere`) is taken only as counted.
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let number = errno
            abort()
            throw .system(number, object: objectName, doing: "cannot check the finished file")
        }
        guard Int(info.st_size) == written else {
            let found = Int(info.st_size)
            abort()
            throw StreamError(
                code: .io, object: objectName,
                message: "the finished file holds \(found) bytes where \(written) were written; it was not published")
        }
        guard fsync(descriptor) == 0 else {
            let number = errno
            abort()
            throw .system(number, object: objectName, doing: "cannot sync the finished file")
        }
        close(descriptor)
        descriptor = -1
        guard renameat(folder, temporaryName, folder, fileName) == 0 else {
            let number = errno
            abort()
            throw .system(number, object: objectName, doing: "cannot move the finished file into place")
        }
        state = .committed
        // The rename is durable once the folder is; a failure here only risks the name.
        _ = fsync(folder)
        return written
    }

    public func abort() {
        guard state == .writing else { return }
        state = .aborted
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        _ = unlinkat(folder, temporaryName, 0)
    }

    /// The final file name of a temporary `.NAME.XXXXXXXXXXXX.partial`, or nil if `name` is not one.
    public static func finalName(ofTemporary name: Substring) -> Substring? {
        guard name.hasPrefix("."), name.hasSuffix(temporarySuffix) else { return nil }
        let stem = name.dropFirst().dropLast(temporarySuffix.count)
        guard let dot = stem.lastIndex(of: "."), stem.distance(from: dot, to: stem.endIndex) == 13 else { return nil }
        let final = stem[..<dot]
        return final.isEmpty ? nil : final
    }

    static func split(_ path: String) -> (folder: String, file: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = slash == path.startIndex ? "/" : String(path[..<slash])
        return (folder, String(path[path.index(after: slash)...]))
    }
}
