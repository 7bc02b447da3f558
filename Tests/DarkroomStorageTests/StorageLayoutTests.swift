import ByteStreams
import DarkroomStorage
import Foundation
import Testing

@Suite struct StorageLayoutTests {
    @Test func theLayoutParsesTheKeysItBuilds() throws {
        let render = StorageLayout.render(assetID: 12, jobID: 345)
        #expect(render.rawValue == "renders/12/345.jpg")
        #expect(StorageLayout.renderOutput(render) == .init(assetID: 12, jobID: 345, kind: .render))
        #expect(
            StorageLayout.renderOutput(StorageLayout.display(assetID: 12, jobID: 345))?.kind == .rendition("display"))
        let thumbnail = try #require(
            StorageLayout.rendition(assetID: 12, jobID: 345, name: "grid-2x", fileExtension: "webp"))
        #expect(thumbnail.rawValue == "renders/12/345.grid-2x.webp")
        #expect(StorageLayout.renderOutput(thumbnail)?.kind == .rendition("grid-2x"))
        #expect(StorageLayout.rendition(assetID: 1, jobID: 2, name: "../x", fileExtension: "webp") == nil)
        #expect(StorageLayout.rendition(assetID: 1, jobID: 2, name: "Thumb", fileExtension: "webp") == nil)
        #expect(StorageLayout.rendition(assetID: 1, jobID: 2, name: "thumb", fileExtension: "gif") == nil)
        #expect(StorageLayout.renderOutput(StorageLayout.layer(assetID: 12, jobID: 345, layer: 2))?.kind == .layer(2))
        let digest = String(repeating: "ab", count: 32)
        #expect(StorageLayout.original(sha256: digest).rawValue == "originals/ab/\(digest).jpg")
        for other in [
            "renders/12/notes.txt", "renders/12/345.png", "renders/x/345.jpg", "renders/12/345.layer0.jpg",
            "renders/12/345.Thumb.jpg", "renders/12/345.thumb.gif", "renders/12/345.a.b.webp", "originals/ab/345.jpg",
            "renders/12/sub/345.jpg",
        ] {
            #expect(StorageLayout.renderOutput(try StorageKey(other)) == nil, "\(other) names no job output")
        }
    }

    @Test func aLocalRootPublishesWholeOrNotAtAllAndListsUnfinishedUploads() throws {
        let base = NSTemporaryDirectory() + "darkroom-seam-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let root = try StorageRoot.create(base)
        let key = StorageLayout.render(assetID: 3, jobID: 7)
        #expect(try !root.exists(key))
        #expect(throws: StreamError.self) { _ = try root.openForReading(key) }
        let bytes = [UInt8](repeating: 42, count: 100_000)
        let aborted = try root.beginPublishing(key)
        try bytes.withUnsafeBytes { try aborted.write($0) }
        let unfinished = try root.beginPublishing(StorageLayout.display(assetID: 3, jobID: 7))
        #expect(try !root.exists(key), "nothing is visible before commit")
        aborted.abort()
        #expect(try root.publish(key) { upload in try bytes.withUnsafeBytes { try upload.write($0) } } == bytes.count)
        #expect(try root.exists(key))
        let source = try root.openForReading(key)
        var read = [UInt8](repeating: 0, count: bytes.count + 10)
        #expect(try read.withUnsafeMutableBytes { try source.readFully(into: $0) } == bytes.count)
        #expect(Array(read.prefix(bytes.count)) == bytes && source.objectName == key.rawValue)

        // The orphan cleanup sees the object and the unfinished upload, with their keys.
        let listed = try root.list(under: StorageLayout.rendersFolder, modifiedBefore: Date().addingTimeInterval(60))
        #expect(listed.count == 2)
        #expect(listed.contains(StoredObject(name: key.rawValue, key: key, isUnfinishedUpload: false)))
        let partial = try #require(listed.first { $0.isUnfinishedUpload })
        #expect(partial.key == StorageLayout.display(assetID: 3, jobID: 7) && partial.name.hasSuffix(".partial"))
        withExtendedLifetime(unfinished) {}
    }
}
