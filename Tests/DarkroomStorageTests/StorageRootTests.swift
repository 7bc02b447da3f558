import DarkroomStorage
import DarkroomTestSupport
import Foundation
import Testing

@Suite struct StorageRootTests {
    /// The same vectors darkroom.stored_path_problem passes (SchemaDefinitionTests).
    @Test func storedPathsFollowTheSharedVectors() throws {
        let vectors = try StoredPathVectors.load()
        #expect(vectors.valid.count >= 5 && vectors.refused.count >= 10)
        for path in vectors.valid {
            do { _ = try StorageKey(path) } catch {
                Issue.record("\(path) is a valid stored path: \(error)")
            }
        }
        for path in vectors.refused + ["a\u{0}b"] {
            #expect(throws: StorageError.self, "\(path)") { try StorageKey(path) }
        }
    }

    @Test func pathsInsideTheRootHaveTheirKeys() throws {
        let base = NSTemporaryDirectory() + "darkroom-root-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let root = try StorageRoot.create(base)
        #expect(root.relativePath(of: base + "/originals/ab/photo.jpg") == "originals/ab/photo.jpg")
        #expect(root.relativePath(of: "/etc/passwd") == nil)
    }

    @Test func missingRootIsReported() {
        #expect {
            _ = try StorageRoot("/nonexistent/darkroom-storage")
        } throws: { ($0 as? StorageError)?.code == .unavailable }
    }
}
