import DarkroomImaging
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWeb
import DarkroomWorker
import Foundation
import Testing

/// The dashboard's thumbnails decode strangers' originals too: `serve` makes them in the same
/// sandboxed child as a worker's renders (`--decoder-sandbox on`, the default), and they come
/// out byte for byte as made in serve's own process; a damaged original is refused in both.
@Suite struct SandboxedThumbnailTests {
    static let originals: [(file: URL, orientation: Orientation)] = [
        (Fixtures.exifSample("orientation/landscape_6.jpg"), .right),
        (Fixtures.root.appendingPathComponent("corpus/osxphotos/IMG_1853.HEIC"), .up),
    ]

    /// Each original stored, then its thumbnail made by `thumbnails` (the cache off).
    static func thumbnails(_ sandbox: DecoderSandbox?, damaged: Bool = false) async throws -> [Result<
        [UInt8], any Error
    >] {
        let folder = NSTemporaryDirectory() + "darkroom-sandboxed-thumbnails-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let storage = try StorageRoot.create(folder)
        let thumbnails = Thumbnails(storage: storage, memoryBudget: 64 << 20, cacheBytes: 0, sandbox: sandbox)
        var made: [Result<[UInt8], any Error>] = []
        for (index, original) in originals.enumerated() {
            var bytes = try Fixtures.bytes(of: original.file)
            if damaged { bytes = Array(bytes.prefix(bytes.count / 3)) }
            let key = try StorageKey("originals/\(index).\(original.file.pathExtension.lowercased())")
            try FileManager.default.createDirectory(atPath: folder + "/originals", withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + key.rawValue))
            do {
                made.append(
                    .success(
                        try await thumbnails.thumbnail(
                            of: Thumbnails.Source(key: key, orientation: original.orientation))))
            } catch {
                made.append(.failure(error))
            }
        }
        return made
    }

    @Test func thumbnailsMadeInTheSandboxAreTheSameBytes() async throws {
        let sandbox = DecoderSandbox(executable: DarkroomCommand.executable.path)
        let sandboxed = try await Self.thumbnails(sandbox)
        let inProcess = try await Self.thumbnails(nil)
        for (inChild, here) in zip(sandboxed, inProcess) {
            let child = try inChild.get()
            #expect(child == (try here.get()))
            #expect(child.count > 1000 && child.starts(with: [0xFF, 0xD8]))
        }
    }

    @Test func aDamagedOriginalIsRefusedInTheSandboxToo() async throws {
        let sandbox = DecoderSandbox(executable: DarkroomCommand.executable.path)
        for made in try await Self.thumbnails(sandbox, damaged: true) {
            #expect(throws: (any Error).self) { try made.get() }
        }
    }
}
