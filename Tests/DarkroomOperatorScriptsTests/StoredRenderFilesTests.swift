import ByteStreams
import DarkroomOperatorScripts
import DarkroomStorage
import Foundation
import Testing

/// What the orphan cleanup is handed from a local root: each render file with the job that
/// wrote it, unfinished uploads marked, and deletions that keep to the renders.
@Suite struct StoredRenderFilesTests {
    @Test func aLocalRootsRenderFilesAndUnfinishedUploadsAreCandidates() throws {
        let base = NSTemporaryDirectory() + "darkroom-seam-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let root = try StorageRoot.create(base)
        let key = StorageLayout.render(assetID: 3, jobID: 7)
        let bytes = [UInt8](repeating: 42, count: 100_000)
        let unfinished = try root.beginPublishing(StorageLayout.display(assetID: 3, jobID: 7))
        #expect(try root.publish(key) { upload in try bytes.withUnsafeBytes { try upload.write($0) } } == bytes.count)
        let listed = try root.list(under: StorageLayout.rendersFolder, modifiedBefore: Date().addingTimeInterval(60))
        let partial = try #require(listed.first { $0.isUnfinishedUpload })
        let candidates = try StoredRenderFiles(storage: root).renderFiles(olderThan: .seconds(-60))
        #expect(
            Set(candidates) == [
                RenderFileCandidate(path: key.rawValue, jobID: 7, isTemporary: false),
                RenderFileCandidate(path: partial.name, jobID: 7, isTemporary: true),
            ])
        try StoredRenderFiles(storage: root).deleteRenderFile(partial.name)
        try StoredRenderFiles(storage: root).deleteRenderFile(partial.name)  // gone already: fine
        #expect(throws: (any Error).self) {
            try StoredRenderFiles(storage: root).deleteRenderFile("originals/ab/x.jpg")
        }
        withExtendedLifetime(unfinished) {}
    }
}
