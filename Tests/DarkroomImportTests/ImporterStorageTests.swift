import DarkroomDatabase
import DarkroomImaging
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import LibPQ
import Logging
import Testing

@testable import DarkroomImport

/// The import hash (swift-crypto's SHA-256 over a streamed file) against the FIPS 180-2
/// known answers, read in chunks that split the 64-byte blocks every which way.
@Suite struct FileDigestTests {
    static let vectors: [(input: [UInt8], digest: String)] = [
        ([], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        // One million 'a': the long vector, thousands of chunks at the small sizes.
        (
            [UInt8](repeating: 0x61, count: 1_000_000),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        ),
    ]

    @discardableResult
    func withTemporaryFile<T>(_ bytes: [UInt8], _ body: (String) throws -> T) throws -> T {
        let path = NSTemporaryDirectory() + "darkroom-digest-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    @Test(arguments: [1, 63, 64, 65, 4096, 65_537, FileDigest.defaultChunkSize])
    func knownVectorsInAnyChunkSize(chunkSize: Int) throws {
        for vector in Self.vectors {
            let digest = try withTemporaryFile(vector.input) { try FileDigest(reading: $0, chunkSize: chunkSize) }
            #expect(
                digest == FileDigest(sha256: vector.digest, byteCount: Int64(vector.input.count)),
                "\(vector.input.count) bytes in chunks of \(chunkSize)")
        }
    }

    @Test func failuresNameTheirFile() throws {
        #expect(throws: FileDigestError.unreadable(path: "/nonexistent/photo.jpg", errno: ENOENT)) {
            try FileDigest(reading: "/nonexistent/photo.jpg")
        }
    }
}

/// Importing through the storage seam: originals stored by hash, and nothing left behind.
@Suite struct ImporterStorageTests {
    func entries(_ folder: String) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test func originalsAreStoredByHashAndStagingLeavesNothing() throws {
        try TestDatabase.withFreshDatabase { url in
            let root = NSTemporaryDirectory() + "darkroom-import-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: root) }
            let storage = try StorageRoot.create(root)
            let connection = try DatabaseConnection(url)
            _ = try Migrator.forTestDatabase(url).migrate(on: connection, logger: Logger(label: "migrate"))
            let importer = Importer(storage: storage, connection: connection, logger: Logger(label: "import"))
            let source = Fixtures.exifSample("gps/DSCN0010.jpg").path
            let sourceBytes = try Data(contentsOf: URL(fileURLWithPath: source))
            let digest = try FileDigest(reading: source)

            let first = try importer.importFile(source)
            #expect(first.status == .imported)
            #expect(first.storedPath == "originals/\(digest.sha256.prefix(2))/\(digest.sha256).jpg")
            let stored = try storage.resolve(first.storedPath)
            #expect(try Data(contentsOf: URL(fileURLWithPath: stored)) == sourceBytes)
            #expect(try AssetStore(connection).asset(id: first.assetID)?.byteSize == Int64(sourceBytes.count))
            let afterFirst = entries(storage.path + "/originals")
            #expect(afterFirst == ["\(digest.sha256.prefix(2))", "\(first.storedPath.dropFirst("originals/".count))"])

            // Known photo: nothing is copied.
            #expect(try importer.importFile(source).status == .existing)
            #expect(entries(storage.path + "/originals") == afterFirst)

            // Known photo whose stored original went missing: it is copied back.
            try FileManager.default.removeItem(atPath: stored)
            let restored = try importer.importFile(source)
            #expect(restored.status == .restored && restored.assetID == first.assetID)
            #expect(try Data(contentsOf: URL(fileURLWithPath: stored)) == sourceBytes)
            #expect(entries(storage.path + "/originals") == afterFirst)

            // Not a JPEG: refused before anything is copied.
            let text = NSTemporaryDirectory() + "darkroom-\(UUID().uuidString).jpg"
            try Data("hello\n".utf8).write(to: URL(fileURLWithPath: text))
            defer { try? FileManager.default.removeItem(atPath: text) }
            // Why, as a code; the refusal names the file and says nothing of its content (libjpeg's
            // message quotes the bytes a file starts with: none of it is kept).
            let refused = try #require(throws: ImportError.self) { try importer.importFile(text) }
            #expect(refused.code == .notAPhoto && refused.message.contains("not a photo darkroom reads"), "\(refused)")
            #expect(!refused.description.contains("0x68") && refused.cause == nil, "\(refused)")
            // A photo damaged past its start keeps the codec's error, typed, underneath.
            var damaged = try Data(contentsOf: Fixtures.exifSample("Canon_40D.jpg"))
            damaged.replaceSubrange(2..<64, with: Data(repeating: 0x41, count: 62))
            let damagedPath = text + ".damaged.jpg"
            try damaged.write(to: URL(fileURLWithPath: damagedPath))
            defer { try? FileManager.default.removeItem(atPath: damagedPath) }
            let refusedDamaged = try #require(throws: ImportError.self) { try importer.importFile(damagedPath) }
            #expect(refusedDamaged.code == .notAPhoto && refusedDamaged.cause is CodecError, "\(refusedDamaged)")
            let missing = try #require(throws: ImportError.self) { try importer.importFile(text + ".missing") }
            #expect(missing.code == .fileNotFound && missing.cause == nil)
            #expect(entries(storage.path + "/originals") == afterFirst)

            // Inside the root: registered where it is, nothing copied; a missing stored copy of
            // the same photo is restored from it.
            try FileManager.default.createDirectory(
                atPath: storage.path + "/incoming", withIntermediateDirectories: true)
            let inside = storage.path + "/incoming/DSCN0021.jpg"
            try FileManager.default.copyItem(atPath: Fixtures.exifSample("gps/DSCN0021.jpg").path, toPath: inside)
            let inPlace = try importer.importFile(inside)
            #expect(inPlace.status == .imported && inPlace.storedPath == "incoming/DSCN0021.jpg")
            #expect(entries(storage.path + "/originals") == afterFirst)
            try FileManager.default.removeItem(atPath: stored)
            try FileManager.default.copyItem(atPath: source, toPath: storage.path + "/incoming/moved.jpg")
            #expect(try importer.importFile(storage.path + "/incoming/moved.jpg").status == .restored)
            #expect(try Data(contentsOf: URL(fileURLWithPath: stored)) == sourceBytes)
            #expect(entries(storage.path + "/originals") == afterFirst)
        }
    }
}
