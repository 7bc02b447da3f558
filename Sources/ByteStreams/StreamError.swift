#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An object that could not be opened, read, written or published: which one, where in it,
/// and why, with the system's error number when there is one.
public struct StreamError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// There is no such object.
        case notFound = "object_missing"
        /// The storage cannot be reached (a share not mounted, a service down): retry later.
        case unavailable = "storage_unavailable"
        /// The storage refuses this object (permissions): fixable, so worth a retry.
        case refused = "permission_denied"
        /// The storage refuses darkroom itself (an object store's 403: wrong secret, a bad
        /// signature, no access to the bucket): every try fails the same until someone fixes
        /// the credentials, so a job fails at once.
        case rejected = "storage_rejected"
        /// The name leads outside the storage (a symlink out of the root): never followed.
        case outsideStorage = "path_outside_storage_root"
        /// The path goes through a symlink under the storage root: never followed, whether it
        /// leads out of the root or not, so a job fails at once.
        case symlinkInPath = "symlink_in_storage_path"
        /// Reading or writing failed part way (a disk error, a full disk, a dropped connection).
        case io = "storage_io"
    }

    public var code: Code
    /// The object, as operators know it (a storage key or a path).
    public var object: String
    public var message: String
    /// Where in the object it happened, when that is known.
    public var byteOffset: Int?
    public var systemErrno: Int32?

    public init(code: Code, object: String, message: String, byteOffset: Int? = nil, systemErrno: Int32? = nil) {
        self.code = code
        self.object = object
        self.message = message
        self.byteOffset = byteOffset
        self.systemErrno = systemErrno
    }

    /// From `errno` after a failed system call on `object`.
    public static func system(_ number: Int32, object: String, doing what: String, at offset: Int? = nil) -> StreamError
    {
        let code: Code =
            switch number {
            case ENOENT, ENOTDIR: .notFound
            case EACCES, EPERM: .refused
            default: .io
            }
        return StreamError(
            code: code, object: object, message: "\(what): \(String(cString: strerror(number)))",
            byteOffset: offset, systemErrno: number)
    }

    public var description: String {
        var text = "\(object): \(message)"
        if let byteOffset { text += " (at byte \(byteOffset))" }
        return text
    }
}
