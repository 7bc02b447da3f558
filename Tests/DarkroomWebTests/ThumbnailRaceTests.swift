import DarkroomDatabase
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWeb
import Foundation
import Hummingbird
import LibPQ
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 31, finding 2: the dashboard checked a stored path, then opened it again by name, so
/// a symlink swapped in between served a file from outside the storage. Here a thread keeps
/// swapping the original between the real file and a symlink to an outside JPEG while the
/// original's thumbnail is fetched again and again (no cache, so each one reads the storage):
/// every answer is the real photo's thumbnail or a refusal, never a byte of the outside file.
/// The dashboard runs in process with no thumbnail cache: `darkroom serve`'s would answer every
/// request after the first from memory.
@Suite struct ThumbnailRaceTests {
    /// Renames the stored original back and forth between a hard link of the real photo and a
    /// symlink to the outside file, each swap atomic, until stopped.
    final class Flipper: @unchecked Sendable {
        private let lock = NSLock()
        private var running = true
        private var flips = 0
        let done = DispatchSemaphore(value: 0)

        var swaps: Int { lock.withLock { flips } }

        func start(original: String, inside: String, outside: String) {
            Thread.detachNewThread { [self] in
                let link = original + ".link"
                let copy = original + ".copy"
                while lock.withLock({ running }) {
                    unlink(link)
                    symlink(outside, link)
                    rename(link, original)
                    unlink(copy)
                    Glibc.link(inside, copy)
                    rename(copy, original)
                    lock.withLock { flips += 1 }
                }
                done.signal()
            }
        }

        /// Waits for the thread to end; once is enough.
        func stop() {
            let wasRunning = lock.withLock {
                defer { running = false }
                return running
            }
            if wasRunning { done.wait() }
        }
    }

    /// A solid JPEG. The real photo is small, so its thumbnails are quick and the race is met
    /// many times a second; the outside one is large, so even its header read by the planning
    /// pass changes the thumbnail (another decode scale).
    static func writeSolid(_ rgb: [UInt8], side: Int, to path: String) throws {
        let pixels = Array((0..<(side * side)).map { _ in rgb }.joined())
        try DecodedImage(width: side, height: side, pixels: pixels).write(to: path)
    }

    @Test func aSymlinkSwappedInNeverServesAnOutsideFile() async throws {
        try await DashboardFixture.with(thumbnailCacheBytes: 0) { fixture, dashboard in
            let outsideFolder = NSTemporaryDirectory() + "darkroom-race-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: outsideFolder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: outsideFolder) }
            let outside = outsideFolder + "/secret.jpg"
            try Self.writeSolid([255, 0, 0], side: 1024, to: outside)
            // The real photo, kept under another name inside the root for the flipper to link back.
            let inside = fixture.storagePath + "/tmp/inside.jpg"
            try Self.writeSolid([0, 0, 255], side: 16, to: inside)
            let digest = String(repeating: "cd", count: 32)
            let key = StorageLayout.original(sha256: digest)
            let original = fixture.storagePath + "/" + key.rawValue
            try FileManager.default.createDirectory(
                atPath: (original as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.linkItem(atPath: inside, toPath: original)
            let assetID = try AssetStore(DatabaseConnection(fixture.url)).register(
                NewAsset(
                    originalPath: key.rawValue, contentSHA256: digest, byteSize: 1, pixelWidth: 16, pixelHeight: 16)
            ).id

            try await Application(router: dashboard.router(sessions: MemoryPersistDriver())).test(.router) { client in
                var browser = Browser(client)
                _ = try await browser.signIn(DashboardFixture.viewerName)
                let path = "/assets/\(assetID)/original.jpg"
                let real = try await browser.get(path)
                #expect(real.status == .ok)

                let flipper = Flipper()
                flipper.start(original: original, inside: inside, outside: outside)
                defer { flipper.stop() }
                var served = 0
                var refused = 0
                var foreign = 0
                for _ in 0..<1500 {
                    let page = try await browser.get(path)
                    if page.status == .ok {
                        if page.bytes == real.bytes { served += 1 } else { foreign += 1 }
                    } else {
                        refused += 1
                    }
                }
                flipper.stop()
                #expect(foreign == 0, "served something other than the stored photo \(foreign) times")
                // Both states were met: the race ran.
                #expect(served > 0 && refused > 0, "served \(served), refused \(refused), \(flipper.swaps) swaps")
            }
        }
    }
}
