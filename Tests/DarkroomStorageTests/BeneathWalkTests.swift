import Foundation
import Testing

@testable import ByteStreams

#if canImport(Glibc)
    import Glibc
#endif

/// Where the kernel has no openat2, `LocalFolder` walks one name at a time with `O_NOFOLLOW`:
/// the walk gives the answers openat2 gives (this kernel has it), so the rule holds either way.
@Suite struct BeneathWalkTests {
    @Test func theWalkRefusesWhatOpenat2Refuses() throws {
        let base = NSTemporaryDirectory() + "darkroom-walk-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let files = FileManager.default
        try files.createDirectory(atPath: base + "/root/a/b", withIntermediateDirectories: true)
        try files.createDirectory(atPath: base + "/outside", withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: URL(fileURLWithPath: base + "/root/a/b/file"))
        try Data("outside".utf8).write(to: URL(fileURLWithPath: base + "/outside/file"))
        try files.createSymbolicLink(atPath: base + "/root/a/inner", withDestinationPath: "b")
        try files.createSymbolicLink(atPath: base + "/root/a/out", withDestinationPath: base + "/outside")
        try files.createSymbolicLink(atPath: base + "/root/a/b/link", withDestinationPath: "file")

        let cases: [(path: String, flags: Int32, errno: Int32?)] = [
            ("a/b/file", O_RDONLY, nil),
            ("a/b", O_RDONLY | O_DIRECTORY, nil),
            ("a/inner/file", O_RDONLY, ELOOP),
            ("a/out/file", O_RDONLY, ELOOP),
            ("a/b/link", O_RDONLY, ELOOP),
            ("a/inner", O_RDONLY | O_DIRECTORY, ELOOP),
            ("a/out", O_RDONLY | O_DIRECTORY, ELOOP),
            ("a/b/missing", O_RDONLY, ENOENT),
            ("a/b/file/x", O_RDONLY, ENOTDIR),
        ]
        try LocalFolder.with(path: base + "/root") { root throws(StreamError) in
            for test in cases {
                let walked = root.walkBeneath(test.path, flags: test.flags | O_NOFOLLOW | O_CLOEXEC, mode: 0)
                let walkErrno = walked < 0 ? errno : nil
                let opened = root.openBeneath(test.path, flags: test.flags)
                let openErrno = opened < 0 ? errno : nil
                for descriptor in [walked, opened] where descriptor >= 0 { close(descriptor) }
                #expect(walkErrno == test.errno, "walk \(test.path)")
                #expect(openErrno == test.errno, "openat2 \(test.path)")
            }
            // A climb is refused by the walk outright (openat2 allows one that stays beneath).
            #expect(root.walkBeneath("a/../../outside/file", flags: O_RDONLY, mode: 0) == -1 && errno == EXDEV)
            #expect(root.openBeneath("a/../../outside/file", flags: O_RDONLY) == -1 && errno == EXDEV)
        }
    }
}
