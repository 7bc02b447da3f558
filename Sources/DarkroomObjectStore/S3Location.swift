import DarkroomStorage

/// Where objects live in an object storage, spelled `s3://BUCKET[/PREFIX]`: the one parser of
/// that spelling (the storage setting, an imported object's URL, messages).
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    public static let scheme = "s3://"

    public var bucket: String
    /// Checked as a `StorageKey`; no leading or trailing slash; empty for the whole bucket.
    public var prefix: String

    /// Whether `text` is spelled as an object storage location at all (else it is a local path).
    public static func names(_ text: String) -> Bool { text.hasPrefix(scheme) }

    /// Parses `s3://bucket/prefix`; throws for anything else, saying what is wrong.
    public init(parsing text: String) throws(StorageError) {
        guard Self.names(text) else {
            throw StorageError(
                code: .notConfigured, message: "an object storage is named s3://BUCKET/PREFIX", object: text)
        }
        let rest = text.dropFirst(Self.scheme.count)
        let bucket = String(rest.prefix { $0 != "/" })
        guard Self.isValidBucket(bucket) else {
            throw StorageError(
                code: .notConfigured,
                message: "\"\(bucket)\" is not a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)",
                object: text)
        }
        var prefix = String(rest.dropFirst(bucket.count))
        while prefix.hasPrefix("/") { prefix.removeFirst() }
        while prefix.hasSuffix("/") { prefix.removeLast() }
        if !prefix.isEmpty {
            do throws(StorageError) {
                _ = try StorageKey(prefix)
            } catch {
                throw StorageError(
                    code: .outsideRoot, message: "the prefix \"\(prefix)\" is refused: \(error.message)", object: text)
            }
        }
        self.bucket = bucket
        self.prefix = prefix
    }

    public var description: String { prefix.isEmpty ? Self.scheme + bucket : Self.scheme + bucket + "/" + prefix }

    /// darkroom's key of an object named by its URL inside this location (`s3://b/p/k` → `k`),
    /// nil when the URL names something outside it; throws when the rest is no allowed key.
    public func key(ofObjectURL url: String) throws(StorageError) -> StorageKey? {
        let base = description + "/"
        guard url.hasPrefix(base) else { return nil }
        return try StorageKey(String(url.dropFirst(base.count)))
    }

    init(bucket: String, prefix: String) {
        self.bucket = bucket
        self.prefix = prefix
    }

    /// S3's bucket naming rules (the common subset of AWS and compatible servers).
    static func isValidBucket(_ name: String) -> Bool {
        (3...63).contains(name.count)
            && name.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                    || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".")
                    || $0 == UInt8(ascii: "-")
            }
            && name.first != "." && name.first != "-" && name.last != "." && name.last != "-"
    }
}
