import Foundation

/// `Tests/Fixtures/semver-precedence.txt`: the version-ordering cases both the Swift and the
/// SQL implementation must pass, so the two cannot drift apart.
public struct SemverVectors: Sendable {
    /// Precedence classes, lowest first; the versions in one class are equal.
    public var classes: [[String]]
    /// Strings that are not versions.
    public var invalid: [String]

    public static func load() throws -> SemverVectors {
        let text = try String(
            contentsOf: Fixtures.root.appendingPathComponent("semver-precedence.txt"), encoding: .utf8)
        var vectors = SemverVectors(classes: [], invalid: [])
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.hasPrefix("#") {
            if line.hasPrefix("invalid:") {
                vectors.invalid += line.dropFirst("invalid:".count).components(separatedBy: " | ")
                    .map { $0.trimmingCharacters(in: .whitespaces) }
            } else if !line.isEmpty {
                vectors.classes.append(line.components(separatedBy: " = "))
            }
        }
        return vectors
    }
}
