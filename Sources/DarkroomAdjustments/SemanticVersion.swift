/// A version per semver.org 2.0.0, also accepting MAJOR.MINOR (Apple's sample
/// extensions write "1.0"), which reads as MAJOR.MINOR.0 but prints as written.
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int
    public var prerelease: [String]
    public var build: [String]
    /// The spelling it was parsed from, kept so "1.0" is written back as "1.0".
    public let text: String

    public init(major: Int, minor: Int, patch: Int, prerelease: [String] = [], build: [String] = []) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
        self.build = build
        var text = "\(major).\(minor).\(patch)"
        if !prerelease.isEmpty { text += "-" + prerelease.joined(separator: ".") }
        if !build.isEmpty { text += "+" + build.joined(separator: ".") }
        self.text = text
    }

    /// The longest version `semver.sql` accepts (which owns the rule); valid versions are ASCII,
    /// so bytes and characters count alike.
    public static let maxLength = 255

    /// nil unless `string` is MAJOR.MINOR[.PATCH][-PRERELEASE][+BUILD] with no leading zeros,
    /// at most `maxLength` long.
    public init?(_ string: String) {
        guard string.utf8.count <= Self.maxLength else { return nil }
        var rest = Substring(string)
        var build: [String] = []
        if let plus = rest.firstIndex(of: "+") {
            build = rest[rest.index(after: plus)...].split(separator: ".", omittingEmptySubsequences: false).map(
                String.init)
            guard !build.isEmpty, build.allSatisfy({ !$0.isEmpty && $0.allSatisfy(Self.isIdentifierCharacter) }) else {
                return nil
            }
            rest = rest[..<plus]
        }
        var prerelease: [String] = []
        if let dash = rest.firstIndex(of: "-") {
            prerelease = rest[rest.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false).map(
                String.init)
            guard !prerelease.isEmpty,
                prerelease.allSatisfy({ identifier in
                    !identifier.isEmpty && identifier.allSatisfy(Self.isIdentifierCharacter)
                        && !(identifier.count > 1 && identifier.first == "0" && identifier.allSatisfy(\.isASCIIDigit))
                })
            else { return nil }
            rest = rest[..<dash]
        }
        let numbers = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.count == 2 || numbers.count == 3 else { return nil }
        var values: [Int] = []
        for number in numbers {
            guard !number.isEmpty, number.allSatisfy(\.isASCIIDigit), number.count < 10,
                !(number.count > 1 && number.first == "0"), let value = Int(number)
            else { return nil }
            values.append(value)
        }
        major = values[0]
        minor = values[1]
        patch = values.count == 3 ? values[2] : 0
        self.prerelease = prerelease
        self.build = build
        text = string
    }

    public var description: String { text }

    /// Precedence per semver.org §11; build metadata does not count.
    public static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
        if lhs.patch != rhs.patch { return lhs.patch < rhs.patch }
        switch (lhs.prerelease.isEmpty, rhs.prerelease.isEmpty) {
        case (true, true), (true, false): return false
        case (false, true): return true
        case (false, false): break
        }
        for (left, right) in zip(lhs.prerelease, rhs.prerelease) where left != right {
            // Numeric identifiers have no leading zeros, so the shorter is the smaller, and
            // digits of equal length compare as text: no Int to overflow.
            switch (left.allSatisfy(\.isASCIIDigit), right.allSatisfy(\.isASCIIDigit)) {
            case (true, true): return (left.count, left) < (right.count, right)
            case (true, false): return true
            case (false, true): return false
            case (false, false): return Array(left.utf8).lexicographicallyPrecedes(right.utf8)
            }
        }
        return lhs.prerelease.count < rhs.prerelease.count
    }

    /// Equal precedence: "1.0" equals "1.0.0"; build metadata is ignored.
    public static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        lhs.major == rhs.major && lhs.minor == rhs.minor && lhs.patch == rhs.patch && lhs.prerelease == rhs.prerelease
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(major)
        hasher.combine(minor)
        hasher.combine(patch)
        hasher.combine(prerelease)
    }

    private static func isIdentifierCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-")
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
