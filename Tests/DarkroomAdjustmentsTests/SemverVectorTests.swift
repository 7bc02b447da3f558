import DarkroomAdjustments
import DarkroomTestSupport
import Testing

/// The Swift half of the shared precedence vectors; SemverSQLTests runs the same file against
/// darkroom.semver_sort_key.
@Suite("Semantic versions: shared vectors")
struct SemverVectorTests {
    @Test func everyClassSortsBelowTheNextAndEqualsItself() throws {
        let vectors = try SemverVectors.load()
        #expect(vectors.classes.count > 20)
        let parsed = try vectors.classes.map { versions in
            try versions.map { text in try #require(SemanticVersion(text), "\(text) should parse") }
        }
        for (lower, higher) in zip(parsed, parsed.dropFirst()) {
            for low in lower {
                for high in higher {
                    #expect(low < high, "\(low) < \(high)")
                    #expect(!(high < low), "not \(high) < \(low)")
                }
            }
        }
        for versions in parsed {
            for (a, b) in zip(versions, versions.dropFirst()) {
                #expect(a == b && !(a < b) && !(b < a), "\(a) and \(b) have equal precedence")
            }
        }
    }

    @Test func invalidStringsAreRefused() throws {
        let vectors = try SemverVectors.load()
        #expect(vectors.invalid.count > 10)
        for text in vectors.invalid {
            #expect(SemanticVersion(text) == nil, "\"\(text)\" is not a version")
        }
    }
}
