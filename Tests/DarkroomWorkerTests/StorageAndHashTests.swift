import DarkroomStorage
import DarkroomWorker
import Foundation
import Testing

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func knownVectors(input: String, digest: String) {
        #expect(SHA256.hex(of: Array(input.utf8)) == digest)
    }

    @Test func streamingInOddChunksMatchesOneShot() {
        let bytes = (0..<1_000_003).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var hasher = SHA256()
        var index = 0
        for size in [1, 63, 64, 65, 1000, 4096].cycled(until: bytes.count) where index < bytes.count {
            let end = min(index + size, bytes.count)
            hasher.update(Array(bytes[index..<end]))
            index = end
        }
        #expect(hasher.finalizeHex() == SHA256.hex(of: bytes))
        // One million 'a': the FIPS 180-2 long vector.
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

extension Array {
    /// Repeats the elements until about `count` have been produced in total weight.
    func cycled(until count: Int) -> [Element] where Element == Int {
        var out: [Int] = []
        var total = 0
        while total < count { for value in self { out.append(value); total += value } }
        return out
    }
}

@Suite struct StorageRootTests {
    @Test(arguments: ["../etc/passwd", "/etc/passwd", "originals/../../x", "originals//x.jpg", "./x.jpg", "", "originals/x/..", "a\u{0}b"])
    func unsafeStoredPathsAreRefused(path: String) {
        #expect(throws: StorageError.self) { try StorageRoot.checkRelative(path) }
    }

    @Test func symlinksOutOfTheRootAreRefused() throws {
        let base = NSTemporaryDirectory() + "darkroom-root-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let root = try StorageRoot.create(base)
        try FileManager.default.createSymbolicLink(atPath: base + "/originals/escape", withDestinationPath: "/etc")
        #expect {
            _ = try root.resolve("originals/escape/passwd")
        } throws: { ($0 as? StorageError)?.code == .outsideRoot }
        #expect(try root.resolve("originals/ab/photo.jpg") == root.path + "/originals/ab/photo.jpg")
        #expect(root.relativePath(of: base + "/originals/ab/photo.jpg") == "originals/ab/photo.jpg")
        #expect(root.relativePath(of: "/etc/passwd") == nil)
    }

    @Test func missingRootIsReported() {
        #expect {
            _ = try StorageRoot("/nonexistent/darkroom-storage")
        } throws: { ($0 as? StorageError)?.code == .unavailable }
    }
}
