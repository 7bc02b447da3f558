import ByteStreams
import DarkroomOperatorScripts
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import S3Answers
import Testing

@testable import DarkroomObjectStore

/// Against the real S3 server `make s3-start` runs, with signatures checked: streaming,
/// multipart, resumed reads over connections that really drop, refusals and listings.
@Suite(.serialized) struct S3StorageTests {
    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    func put(_ bytes: [UInt8], at key: StorageKey, in storage: S3Storage, chunk: Int = 1 << 20) throws {
        try storage.publish(key) { upload in
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + chunk)
                try bytes[offset..<end].withUnsafeBytes { try upload.write($0) }
                offset = end
            }
        }
    }

    func readAll(_ source: any ByteSource, chunk: Int = 100_000) throws -> [UInt8] {
        var whole: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let got = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if got == 0 { return whole }
            whole += buffer[..<got]
        }
    }

    @Test func aWrongSecretIsRefusedByTheServerAndReportedClearly() throws {
        let good = try TestObjectStore.storage()
        let key = StorageLayout.render(assetID: 1, jobID: 1)
        try put([1, 2, 3], at: key, in: good)
        let bad = try TestObjectStore.storage(prefix: good.configuration.prefix, secret: "not-the-secret")
        #expect(throws: S3Error.self) { try bad.checkAccess() }
        do {
            _ = try bad.openForReading(key)
            Issue.record("a wrong secret must be refused")
        } catch {
            #expect(error.code == .rejected, "\(error)")
            #expect(
                error.message.contains("SignatureDoesNotMatch") && error.message.contains("AWS_SECRET_ACCESS_KEY"),
                "\(error)")
            #expect(
                error.message.contains("s3://\(TestObjectStore.bucket)/\(good.configuration.prefix)/\(key)"),
                "names bucket and key: \(error)")
        }
        #expect(throws: StreamError.self) { _ = try bad.exists(key) }
        #expect(!bad.isAvailable && good.isAvailable)
        // Through the settings every command uses: refused before any work, saying why.
        let server = try TestObjectStore.server()
        let settings = StorageSettings(
            storage: "s3://\(TestObjectStore.bucket)", endpointURL: server.endpoint,
            accessKeyID: server.accessKeyID, secretAccessKey: "not-the-secret")
        do {
            _ = try settings.open()
            Issue.record("opening with a wrong secret must fail")
        } catch {
            #expect(error.code == .unavailable && error.message.contains("SignatureDoesNotMatch"), "\(error)")
        }
        let opened = try StorageSettings(
            storage: "s3://\(TestObjectStore.bucket)", endpointURL: server.endpoint,
            accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey
        ).open()
        #expect(opened.location == "s3://\(TestObjectStore.bucket)" && opened.key(ofLocalFile: "/etc/passwd") == nil)
    }

    @Test func aMultiMebibyteObjectStreamsThroughABoundedBuffer() throws {
        let storage = try TestObjectStore.storage()
        let key = StorageLayout.render(assetID: 2, jobID: 5)
        let bytes = Self.randomBytes(13 << 20, seed: 1)
        try put(bytes, at: key, in: storage)
        let source = try storage.openForReading(key)
        #expect(source.objectName == key.rawValue)
        // Read slowly, in small pieces: the transfer must pause rather than buffer the object.
        #expect(try readAll(source, chunk: 7_777) == bytes)
        let reader = try #require(source as? S3ObjectReader)
        #expect(reader.peakBufferedBytes <= storage.readBufferBytes + (512 << 10), "peak \(reader.peakBufferedBytes)")
        #expect(reader.peakBufferedBytes <= storage.bufferedBytesPerStream)
        #expect(reader.resumes == 0)
        // A missing object is .notFound at open, and exists says false.
        do {
            _ = try storage.openForReading(StorageLayout.render(assetID: 2, jobID: 6))
            Issue.record("a missing object must not open")
        } catch {
            #expect(error.code == .notFound && error.message.contains("404"), "\(error)")
        }
        #expect(try !storage.exists(StorageLayout.render(assetID: 2, jobID: 6)) && storage.exists(key))
    }

    @Test func aMultipartUploadAppearsOnlyWhenCompleteAndNothingAfterAbort() throws {
        let storage = try TestObjectStore.storage()
        let key = StorageLayout.render(assetID: 3, jobID: 7)
        let bytes = Self.randomBytes(12 << 20 + 12345, seed: 2)  // three parts: 5 + 5 + 2 MiB
        let upload = try #require(try storage.beginPublishing(key) as? S3Upload)
        try bytes.withUnsafeBytes { try upload.write($0) }
        #expect(upload.uploadID != nil, "parts went up before commit")
        #expect(try !storage.exists(key), "nothing visible before commit")
        let pending = try storage.list(
            under: StorageLayout.rendersFolder, modifiedBefore: Date().addingTimeInterval(60))
        #expect(pending.count == 1 && pending[0].isUnfinishedUpload && pending[0].key == key, "\(pending)")
        #expect(try upload.commit() == bytes.count)
        #expect(try readAll(storage.openForReading(key)) == bytes)
        let done = try storage.list(under: StorageLayout.rendersFolder, modifiedBefore: Date().addingTimeInterval(60))
        #expect(done == [StoredObject(name: key.rawValue, key: key, isUnfinishedUpload: false)], "\(done)")

        // Aborted part way: no object, no upload left behind.
        let other = StorageLayout.display(assetID: 3, jobID: 7)
        let aborted = try storage.beginPublishing(other)
        try bytes.withUnsafeBytes { try aborted.write($0) }
        aborted.abort()
        aborted.abort()
        #expect(try !storage.exists(other))
        #expect(
            try storage.list(under: StorageLayout.rendersFolder, modifiedBefore: Date().addingTimeInterval(60)).count
                == 1)
        // A small object goes up in one PUT.
        let small = StorageLayout.layer(assetID: 3, jobID: 7, layer: 1)
        #expect(try storage.publish(small) { try [UInt8](repeating: 9, count: 1000).withUnsafeBytes($0.write) } == 1000)
        #expect(try readAll(storage.openForReading(small)) == [UInt8](repeating: 9, count: 1000))
        // And an empty one.
        let empty = StorageLayout.layer(assetID: 3, jobID: 7, layer: 2)
        #expect(try storage.publish(empty) { _ in } == 0)
        #expect(try readAll(storage.openForReading(empty)).isEmpty)
    }

    @Test func housekeepingListsAndAbortsUnfinishedUploadsLeftBehind() throws {
        let storage = try TestObjectStore.storage()
        let key = StorageLayout.render(assetID: 4, jobID: 11)
        // A worker killed mid-upload: parts sent, never completed nor aborted.
        let left = try storage.beginPublishing(key)
        try Self.randomBytes(6 << 20, seed: 3).withUnsafeBytes { try left.write($0) }
        let files = StoredRenderFiles(storage: storage)
        #expect(try files.renderFiles(olderThan: .seconds(3600)).isEmpty, "too young for the cutoff")
        let candidates = try files.renderFiles(olderThan: .seconds(-60))
        #expect(candidates.count == 1 && candidates[0].isTemporary && candidates[0].jobID == 11, "\(candidates)")
        try files.deleteRenderFile(candidates[0].path)
        try files.deleteRenderFile(candidates[0].path)  // gone already: fine
        #expect(
            try storage.list(under: StorageLayout.rendersFolder, modifiedBefore: Date().addingTimeInterval(60)).isEmpty)
        // The upload is gone on the server: completing it now fails, and nothing appears.
        #expect(throws: StreamError.self) { try left.commit() }
        #expect(try !storage.exists(key))
        // Objects are removed the same way.
        try put([1], at: key, in: storage)
        try storage.remove(key.rawValue)
        #expect(try !storage.exists(key))
    }

    @Test func badKeysAndNamesAreRefusedBeforeAnyRequest() throws {
        let storage = try TestObjectStore.storage()
        for name in ["../renders/1/2.jpg", "/renders/1/2.jpg", "renders//2.jpg", "renders/1/../../x#upload=1", ""] {
            do {
                try storage.remove(name)
                Issue.record("\(name) must be refused")
            } catch {
                #expect(error.code == .outsideStorage, "\(name): \(error)")
            }
        }
        #expect(throws: StreamError.self) { _ = try storage.list(under: "../other", modifiedBefore: Date()) }
        #expect(throws: StorageError.self) { _ = try StorageKey("renders/../../etc/passwd") }
    }

    @Test func aDroppedConnectionResumesWithARangedGetFromWhereItBroke() throws {
        let storage = try TestObjectStore.storage()
        let key = StorageLayout.original(sha256: String(repeating: "cd", count: 32))
        let bytes = Self.randomBytes(9 << 20 + 3, seed: 4)
        try put(bytes, at: key, in: storage)
        let port = try #require(URL(string: try TestObjectStore.server().endpoint)?.port)
        // The first two connections break after 1.5 MiB of answer each.
        let proxy = try CuttingProxy(targetPort: UInt16(port), cutAfter: 3 << 19, cuts: 2)
        defer { proxy.stop() }
        let proxied = try TestObjectStore.storage(prefix: storage.configuration.prefix, endpoint: proxy.endpoint)
        let source = try proxied.openForReading(key)
        #expect(try readAll(source) == bytes, "the resumed bytes are the object's")
        let reader = try #require(source as? S3ObjectReader)
        #expect(reader.resumes == 2 && proxy.cutsMade == 2, "resumes \(reader.resumes), cuts \(proxy.cutsMade)")
    }

    @Test func aResumeNeverSplicesAReplacedObject() throws {
        let storage = try TestObjectStore.storage()
        let key = StorageLayout.render(assetID: 5, jobID: 1)
        try put(Self.randomBytes(6 << 20, seed: 5), at: key, in: storage)
        let port = try #require(URL(string: try TestObjectStore.server().endpoint)?.port)
        let proxy = try CuttingProxy(targetPort: UInt16(port), cutAfter: 2 << 20, cuts: 1)
        defer { proxy.stop() }
        let proxied = try TestObjectStore.storage(prefix: storage.configuration.prefix, endpoint: proxy.endpoint)
        let source = try proxied.openForReading(key)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        _ = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
        try put(Self.randomBytes(6 << 20, seed: 6), at: key, in: storage)
        do {
            _ = try readAll(source)
            Issue.record("reading on after the object was replaced must fail")
        } catch let error as StreamError {
            #expect(error.code == .io && error.message.contains("replaced"), "\(error)")
            #expect(error.byteOffset != nil)
        }
    }

    @Test func anUnreachableServerIsTransientAfterBoundedRetries() throws {
        // A port nothing listens on (the proxy, stopped).
        let proxy = try CuttingProxy(targetPort: 1, cutAfter: 0, cuts: 0)
        let endpoint = proxy.endpoint
        proxy.stop()
        let storage = try TestObjectStore.storage(
            prefix: "unreachable", endpoint: endpoint,
            secret: try TestObjectStore.server().secretAccessKey)
        let started = ContinuousClock.now
        do {
            _ = try storage.openForReading(StorageLayout.render(assetID: 1, jobID: 1))
            Issue.record("nothing listens there")
        } catch {
            #expect(error.code == .unavailable && error.message.contains("after 3 tries"), "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}
