import ContentDigest
import Crypto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file's SHA-256 and size. Assets are identified by the hash of their bytes, so importing
/// the same photo twice finds the first import whatever its file name.
struct FileDigest: Sendable, Equatable {
    /// 64 lowercase hex digits, the form `darkroom.assets.content_sha256` holds.
    var sha256: String
    var byteCount: Int64

    /// Large reads keep the per-call cost (syscall, hasher update) negligible next to the
    /// hashing itself, as `sha256sum` does.
    static let defaultChunkSize = 1 << 20

    init(sha256: String, byteCount: Int64) {
        self.sha256 = sha256
        self.byteCount = byteCount
    }

    /// Reads `path` once from start to end, hashing every chunk.
    init(reading path: String, chunkSize: Int = defaultChunkSize) throws(FileDigestError) {
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .unreadable(path: path, errno: errno) }
        defer { close(input) }
        #if os(Linux)
            // Doubles the kernel's read-ahead for a file read once, front to back.
            _ = posix_fadvise(input, 0, 0, POSIX_FADV_SEQUENTIAL)
        #endif
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 4096)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var total: Int64 = 0
        while true {
            let count = read(input, buffer.baseAddress, chunkSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, errno: errno)
            }
            if count == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            hasher.update(bufferPointer: chunk)
            total += Int64(count)
        }
        sha256 = ContentDigest.hex(hasher.finalize())
        byteCount = total
    }

}

/// A failed read of the file being hashed, naming it.
struct FileDigestError: Error, Equatable, CustomStringConvertible {
    /// Wrapped by the importer as `ImportError` `.unreadable`, the code it stores.
    enum Code: String {
        case unreadable = "file_unreadable"
    }

    var code: Code
    var path: String
    /// The failed `open` or `read` call's error number.
    var errno: Int32

    var description: String {
        "\(path): cannot be read: \(String(cString: strerror(errno))); check it exists and is readable"
    }

    static func unreadable(path: String, errno: Int32) -> FileDigestError {
        FileDigestError(code: .unreadable, path: path, errno: errno)
    }
}
