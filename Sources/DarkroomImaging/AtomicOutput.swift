#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that appears whole or not at all: written under a unique temporary name in the
/// same directory, then synced, renamed over the final name, and the directory synced,
/// so a crash leaves either nothing or a complete file. Whoever writes `temporaryPath` syncs
/// it before `commit()`.
public struct AtomicOutput: Sendable {
    public let finalPath: String
    public let temporaryPath: String

    public init(finalPath: String) throws {
        self.finalPath = finalPath
        let directory = Self.directory(of: finalPath)
        let name = String(finalPath.split(separator: "/").last ?? "output")
        var suffix = ""
        for _ in 0..<12 { suffix.append("abcdefghijklmnopqrstuvwxyz0123456789".randomElement()!) }
        temporaryPath = "\(directory)/.\(name).\(suffix).partial"
        var info = stat()
        guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw RenderError.output(path: finalPath, message: "the folder \(directory) does not exist")
        }
    }

    /// Renames the synced temporary file into place; returns the file's size.
    @discardableResult
    public func commit() throws -> Int {
        var info = stat()
        guard stat(temporaryPath, &info) == 0 else {
            throw RenderError.output(path: finalPath, message: "the finished file vanished: \(String(cString: strerror(errno)))")
        }
        guard rename(temporaryPath, finalPath) == 0 else {
            let message = String(cString: strerror(errno))
            discard()
            throw RenderError.output(path: finalPath, message: "cannot move the finished file into place: \(message)")
        }
        let directory = open(Self.directory(of: finalPath), O_RDONLY)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
        return Int(info.st_size)
    }

    public func discard() {
        _ = unlink(temporaryPath)
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
