/// A storage that cannot be used at all (not configured, not there), or a key that must not
/// be used. Reading and writing objects fails with `StreamError` instead.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case notConfigured = "storage_not_configured"
        case unavailable = "storage_unavailable"
        case outsideRoot = "path_outside_storage_root"
        /// A folder of the layout is a symlink: never followed (`StreamError.Code.symlinkInPath`).
        case symlinkInPath = "symlink_in_storage_path"
    }

    public var code: Code
    public var message: String
    /// The root, key or path concerned.
    public var object: String

    public init(code: Code, message: String, object: String) {
        self.code = code
        self.message = message
        self.object = object
    }

    public var description: String { object.isEmpty ? message : "\(object): \(message)" }
}
