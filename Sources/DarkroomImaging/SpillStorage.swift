import CSystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where decoded pixels wait when output rows cannot be produced in decode order
/// (rotations and flips). Offsets are in bytes.
protocol SpillStorage: AnyObject {
    func write(at offset: Int, from bytes: UnsafeRawBufferPointer) throws
    func read(at offset: Int, into bytes: UnsafeMutableRawBufferPointer) throws
}

/// A spill held in memory, for images small enough that a file would only cost time.
final class MemorySpill: SpillStorage {
    private var storage: UnsafeMutableRawBufferPointer

    init(byteCount: Int) {
        storage = .allocate(byteCount: max(byteCount, 1), alignment: 16)
    }

    deinit { storage.deallocate() }

    func write(at offset: Int, from bytes: UnsafeRawBufferPointer) throws {
        UnsafeMutableRawBufferPointer(rebasing: storage[offset..<(offset + bytes.count)]).copyMemory(from: bytes)
    }

    func read(at offset: Int, into bytes: UnsafeMutableRawBufferPointer) throws {
        bytes.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[offset..<(offset + bytes.count)]))
    }
}

/// A spill in a temporary file without a name (O_TMPFILE; where the file system has none, a
/// name removed as soon as the file is open), so the space is returned on every exit path,
/// kill -9 included. An unnamed file is also the only file the decoders' sandbox may make.
final class FileSpill: SpillStorage {
    let directory: String
    private let descriptor: Int32

    init(directory: String) throws {
        self.directory = directory
        var descriptor = dr_open_scratch(directory)
        if descriptor < 0 && [EOPNOTSUPP, EISDIR, EINVAL].contains(errno) {
            var template = Array("\(directory)/darkroom-spill-XXXXXX".utf8CString)
            descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            if descriptor >= 0 { template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) } }
        }
        guard descriptor >= 0 else {
            throw RenderError.spill(path: directory, message: "cannot create a temporary file", errno: errno)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    func write(at offset: Int, from bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let wrote = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else {
                throw RenderError.spill(path: directory, message: "write failed", errno: errno)
            }
            done += wrote
        }
    }

    func read(at offset: Int, into bytes: UnsafeMutableRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let got = pread(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw RenderError.spill(
                    path: directory, message: got == 0 ? "read failed: unexpected end of file" : "read failed",
                    errno: got == 0 ? nil : errno)
            }
            done += got
        }
    }
}
