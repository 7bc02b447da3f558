import Foundation

/// A setting that may be a secret (a database URL with its password, an S3 secret key): the
/// variable `NAME`, else the contents of the file that `NAME_FILE` names, as container platforms
/// hand secrets over (mounted files). Never a command-line flag: every local user reads those.
public enum SecretVariable {
    /// A secret file holds one value; anything larger is not one.
    public static let maxFileBytes = 64 << 10

    /// `NAME`'s value, else `NAME_FILE`'s file's contents without a trailing newline; nil: neither is set.
    public static func value(_ name: String, in environment: [String: String]) throws(SecretFileError) -> String? {
        if let value = environment[name], !value.isEmpty { return value }
        guard let path = environment[name + "_FILE"], !path.isEmpty else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SecretFileError(variable: name + "_FILE", object: path, reason: "cannot be opened")
        }
        defer { try? handle.close() }
        let bytes: Data
        do { bytes = try handle.read(upToCount: maxFileBytes + 1) ?? Data() } catch {
            throw SecretFileError(variable: name + "_FILE", object: path, reason: "cannot be read")
        }
        guard bytes.count <= maxFileBytes else {
            throw SecretFileError(
                variable: name + "_FILE", object: path, reason: "is larger than \(maxFileBytes) bytes")
        }
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw SecretFileError(variable: name + "_FILE", object: path, reason: "is not UTF-8 text")
        }
        let value =
            text.hasSuffix("\r\n") ? String(text.dropLast(2)) : text.hasSuffix("\n") ? String(text.dropLast()) : text
        guard !value.isEmpty else { throw SecretFileError(variable: name + "_FILE", object: path, reason: "is empty") }
        return value
    }
}

/// A secret's file named by a `*_FILE` variable that gives no value. Its contents are never shown.
public struct SecretFileError: Error, CustomStringConvertible, Sendable {
    public var variable: String
    /// The secret's file.
    public var object: String
    public var reason: String

    public var description: String {
        "\(variable) names \(object.debugDescription), which \(reason); write the secret alone in that file, readable by this user"
    }
}
