/// The name of an object, relative to the storage (`originals/ab/ab12….jpg`): what the
/// database records and operators see. Checked when made, so a key can never name anything
/// outside the storage: no absolute paths, no `..` or `.`, no empty components, no NUL.
public struct StorageKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) throws(StorageError) {
        if let problem = Self.problem(with: rawValue) {
            throw StorageError(
                code: .outsideRoot, message: "the stored path \"\(rawValue)\" is refused: \(problem)", object: rawValue)
        }
        self.rawValue = rawValue
    }

    /// For keys the layout builds from numbers and hex digests, which are always well formed.
    init(trusted rawValue: String) {
        assert(Self.problem(with: rawValue) == nil, "the layout built a bad key: \(rawValue)")
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The key's last component.
    public var name: Substring {
        rawValue[(rawValue.lastIndex(of: "/").map(rawValue.index(after:)) ?? rawValue.startIndex)...]
    }

    public static func < (lhs: StorageKey, rhs: StorageKey) -> Bool { lhs.rawValue < rhs.rawValue }

    static func problem(with key: String) -> String? {
        if key.isEmpty { return "it is empty" }
        if key.hasPrefix("/") { return "it is absolute; stored paths are relative to the storage root" }
        if key.utf8.contains(0) { return "it contains a NUL byte" }
        if key.split(separator: "/", omittingEmptySubsequences: false).contains(where: {
            $0 == ".." || $0 == "." || $0.isEmpty
        }) {
            return "it contains '..', '.' or an empty component"
        }
        return nil
    }
}
