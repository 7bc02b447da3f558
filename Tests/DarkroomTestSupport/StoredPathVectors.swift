import Foundation

/// `Tests/Fixtures/stored-paths.txt`: the stored paths both `StorageKey` and
/// `darkroom.stored_path_problem` must accept or refuse, so the two cannot drift apart.
public struct StoredPathVectors: Sendable {
    public var valid: [String]
    public var refused: [String]

    public static func load() throws -> StoredPathVectors {
        let text = try String(contentsOf: Fixtures.root.appendingPathComponent("stored-paths.txt"), encoding: .utf8)
        var vectors = StoredPathVectors(valid: [], refused: [])
        for line in text.split(separator: "\n", omittingEmptySubsequences: false)
        where !line.hasPrefix("#") && !line.isEmpty {
            for (tag, keyPath) in [("valid:", \StoredPathVectors.valid), ("refused:", \StoredPathVectors.refused)]
            where line.hasPrefix(tag) {
                let rest = line.dropFirst(tag.count)
                vectors[keyPath: keyPath].append(String(rest.hasPrefix(" ") ? rest.dropFirst() : rest))
            }
        }
        return vectors
    }
}
