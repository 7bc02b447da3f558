import ByteStreams
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import Testing

/// Issue 31: the storage reaches nothing through a symlink under its root, on any path (read,
/// write, look-up, listing, delete), so a link planted there cannot lead darkroom outside.
/// Real files and real symlinks in a temporary folder.
@Suite struct StorageConfinementTests {
    /// A storage root and a folder beside it that must stay untouched.
    struct Place {
        let base: String
        let root: StorageRoot
        var outside: String { base + "/outside" }

        init() throws {
            base = NSTemporaryDirectory() + "darkroom-confined-\(UUID().uuidString)"
            root = try StorageRoot.create(base + "/storage")
            try FileManager.default.createDirectory(atPath: base + "/outside", withIntermediateDirectories: true)
        }

        func remove() { try? FileManager.default.removeItem(atPath: base) }

        /// `link` (relative to the root) made a symlink to `target`.
        func link(_ link: String, to target: String) throws {
            let path = root.path + "/" + link
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        }

        var outsideEntries: [String] {
            ((try? FileManager.default.subpathsOfDirectory(atPath: outside)) ?? []).sorted()
        }

        func write(_ text: String, to path: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
    }

    static func refusedAsSymlink(_ error: any Error, naming key: String) -> Bool {
        guard let error = error as? StreamError else { return false }
        return error.code == .symlinkInPath && error.object == key && error.systemErrno == ELOOP
    }

    @Test func aRenderIntoASymlinkedAssetFolderIsRefusedAndNothingIsWrittenOutside() throws {
        let place = try Place()
        defer { place.remove() }
        try place.link("renders/17", to: place.outside)
        for key in [StorageLayout.render(assetID: 17, jobID: 241), StorageLayout.display(assetID: 17, jobID: 241)] {
            #expect {
                try place.root.publish(key) { upload in
                    try Array("render".utf8).withUnsafeBytes { try upload.write($0) }
                }
            } throws: { Self.refusedAsSymlink($0, naming: key.rawValue) }
        }
        #expect(place.outsideEntries == [])
    }

    @Test func aSymlinkedFolderOfTheLayoutIsRefusedWhenTheStorageIsPrepared() throws {
        let place = try Place()
        defer { place.remove() }
        try FileManager.default.removeItem(atPath: place.root.path + "/renders")
        try place.link("renders", to: place.outside)
        #expect { try place.root.prepare() } throws: { ($0 as? StorageError)?.code == .symlinkInPath }
        #expect {
            try place.root.publish(StorageLayout.render(assetID: 1, jobID: 2)) { _ in }
        } throws: { Self.refusedAsSymlink($0, naming: "renders/1/2.jpg") }
        #expect(place.outsideEntries == [])
    }

    /// A symlink as the file, and as a folder on the way, whether it leads outside or not.
    @Test func readsAndLookUpsThroughASymlinkAreRefused() throws {
        let place = try Place()
        defer { place.remove() }
        try place.write("outside bytes", to: place.outside + "/secret.jpg")
        try place.write("inside bytes", to: place.root.path + "/originals/inside.jpg")
        try place.link("originals/ab/abcd.jpg", to: place.outside + "/secret.jpg")
        try place.link("originals/cd", to: place.outside)
        try place.link("originals/ef/efef.jpg", to: place.root.path + "/originals/inside.jpg")
        for name in ["originals/ab/abcd.jpg", "originals/cd/secret.jpg", "originals/ef/efef.jpg"] {
            let key = try StorageKey(name)
            #expect(throws: Never.self) { _ = try place.root.openForReading(StorageKey("originals/inside.jpg")) }
            #expect { _ = try place.root.openForReading(key) } throws: { Self.refusedAsSymlink($0, naming: name) }
            #expect { _ = try place.root.withObject(key) { try $0() } } throws: {
                Self.refusedAsSymlink($0, naming: name)
            }
            #expect { _ = try place.root.exists(key) } throws: { ($0 as? StreamError)?.code == .symlinkInPath }
        }
        // A symlinked folder's missing file is refused, not reported missing.
        #expect {
            _ = try place.root.exists(StorageKey("originals/cd/absent.jpg"))
        } throws: { Self.refusedAsSymlink($0, naming: "originals/cd/absent.jpg") }
    }

    /// The orphan cleanup neither lists nor deletes anything a symlink leads to.
    @Test func listingAndDeletingDoNotFollowSymlinks() throws {
        let place = try Place()
        defer { place.remove() }
        try place.write("outside render", to: place.outside + "/9.jpg")
        try place.link("renders/17", to: place.outside)
        try place.link("renders/18/9.jpg", to: place.outside + "/9.jpg")
        try place.root.publish(StorageLayout.render(assetID: 19, jobID: 9)) { upload in
            try Array("render".utf8).withUnsafeBytes { try upload.write($0) }
        }
        let listed = try place.root.list(under: StorageLayout.rendersFolder, modifiedBefore: .distantFuture)
        #expect(listed.map(\.name) == ["renders/19/9.jpg"])
        #expect {
            try place.root.remove("renders/17/9.jpg")
        } throws: { Self.refusedAsSymlink($0, naming: "renders/17/9.jpg") }
        #expect(place.outsideEntries == ["9.jpg"])
        // The link itself goes; what it points at stays.
        try place.root.remove("renders/18/9.jpg")
        #expect(!FileManager.default.fileExists(atPath: place.root.path + "/renders/18/9.jpg"))
        #expect(place.outsideEntries == ["9.jpg"])
    }

    /// Streams of one opened object read the file that was opened, even once its name leads
    /// elsewhere: what the dashboard checked is what it serves.
    @Test func streamsOfAnOpenedObjectReadTheFileThatWasOpened() throws {
        let place = try Place()
        defer { place.remove() }
        let path = place.root.path + "/originals/photo.jpg"
        try place.write("inside", to: path)
        let read = try place.root.withObject(StorageKey("originals/photo.jpg")) { stream -> [String] in
            let first = try Self.text(of: stream())
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: place.outside + "/x.jpg")
            try place.write("outside", to: place.outside + "/x.jpg")
            return [first, try Self.text(of: stream()), try Self.text(of: stream())]
        }
        #expect(read == ["inside", "inside", "inside"])
    }

    static func text(of source: any ByteSource) throws -> String {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = try bytes.withUnsafeMutableBytes { try source.readFully(into: $0) }
        return String(decoding: bytes.prefix(count), as: UTF8.self)
    }
}
