import ByteStreams
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import Testing

@testable import DarkroomWorker

/// A local output reaches the decoding child as the temporary file it fills, so none of it
/// crosses the channel; the worker publishes the file once the child has ended, and only if it
/// holds exactly what the child said it wrote. An upload that is not a local file (an S3 object,
/// a dashboard's cache) still takes the bytes over the channel. Both make the same bytes.
@Suite struct SandboxOutputTests {
    /// A local file's upload, watched: how often the worker wrote to it, and what it was told
    /// another process wrote.
    final class WatchedUpload: ObjectUpload {
        let file: FileUpload
        let offersDescriptor: Bool
        var writes = 0
        var writtenElsewhere = 0

        init(path: String, offersDescriptor: Bool) throws {
            file = try FileUpload(finalPath: path)
            self.offersDescriptor = offersDescriptor
        }

        var objectName: String { file.objectName }
        func write(_ bytes: UnsafeRawBufferPointer) throws(StreamError) {
            writes += 1
            try file.write(bytes)
        }
        func commit() throws(StreamError) -> Int { try file.commit() }
        func abort() { file.abort() }

        func withUnwrittenFile<Result, Failure: Error>(_ body: (Int32?) throws(Failure) -> Result) throws(Failure)
            -> Result
        {
            offersDescriptor ? try file.withUnwrittenFile(body) : try body(nil)
        }

        func countWrittenElsewhere(_ bytes: Int) {
            writtenElsewhere += bytes
            file.countWrittenElsewhere(bytes)
        }
    }

    static func withFolder<Result>(_ body: (String) throws -> Result) throws -> Result {
        let folder = NSTemporaryDirectory() + "darkroom-sandbox-outputs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return try body(folder)
    }

    /// A thumbnail of a real photo made by `sandbox` into `upload`.
    static func thumbnail(with sandbox: DecoderSandbox, to upload: any ObjectUpload) throws {
        let photo = Fixtures.exifSample("Canon_40D.jpg").path
        try sandbox.thumbnail(
            of: photo, longestSide: 256, orientation: .up, quality: 80, memoryBudget: 64 << 20,
            open: { try FileSource(path: photo) }, to: upload, scratchDirectory: NSTemporaryDirectory(),
            bufferedBytesPerStream: 1 << 16)
    }

    @Test func aLocalOutputIsWrittenByTheChildNotSentOverTheChannel() throws {
        try Self.withFolder { folder in
            let sandbox = DecoderSandbox(executable: DarkroomCommand.executable.path)
            let given = try WatchedUpload(path: folder + "/given.jpg", offersDescriptor: true)
            try Self.thumbnail(with: sandbox, to: given)
            let sent = try WatchedUpload(path: folder + "/sent.jpg", offersDescriptor: false)
            try Self.thumbnail(with: sandbox, to: sent)
            let givenBytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/given.jpg"))
            #expect(givenBytes == (try Data(contentsOf: URL(fileURLWithPath: folder + "/sent.jpg"))))
            #expect(givenBytes.starts(with: [0xFF, 0xD8]) && givenBytes.count > 1000)
            // Given: the worker wrote nothing, and counted what the child did.
            #expect(given.writes == 0)
            #expect(given.writtenElsewhere == givenBytes.count)
            #expect(sent.writes > 0 && sent.writtenElsewhere == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["given.jpg", "sent.jpg"])
        }
    }

    /// A stand-in child that writes `written` to the file it was given, commits it saying it
    /// wrote `said` bytes (nil: does not commit it), and answers with a thumbnail's outcome.
    static func standIn(writing written: String, saying said: UInt8?) -> String {
        let outcome =
            #"{"editWarnings":[],"renderWarnings":[],"outputWidth":1,"outputHeight":1,"outputBytes":1,"#
            + #""renditions":[],"plannedMemory":0,"budget":0,"math":{},"filters":[]}"#
        let count = String(outcome.utf8.count, radix: 8)
        let commit = said.map {
            #"printf '\010\000\000\000\000\000\000\000\027\"# + String($0, radix: 8)
                + #"\000\000\000\000\000\000\000' >&0"#
        }
        return """
            printf '\(written)' >&4
            \(commit ?? "")
            printf '\\\(count)\\000\\000\\000\\000\\000\\000\\000\\033%s' '\(outcome)' >&0
            sleep 30
            """
    }

    /// The worker takes the child's word for how much it wrote only as far as the file bears it
    /// out: a file that holds more or less is not published, and no temporary stays behind.
    @Test func aFileThatHoldsOtherThanTheChildSaidIsNotPublished() throws {
        try Self.withFolder { folder in
            try SandboxedRenderTests.withStandIn(Self.standIn(writing: "abcdef", saying: 6)) { sandbox in
                let upload = try FileUpload(finalPath: folder + "/true.jpg")
                try Self.thumbnail(with: sandbox, to: upload)
                #expect(try String(contentsOfFile: folder + "/true.jpg", encoding: .utf8) == "abcdef")
            }
            for said: UInt8 in [3, 9] {
                try SandboxedRenderTests.withStandIn(Self.standIn(writing: "abcdef", saying: said)) { sandbox in
                    let upload = try FileUpload(finalPath: folder + "/false.jpg")
                    let error = #expect(throws: RenderError.self) { try Self.thumbnail(with: sandbox, to: upload) }
                    #expect("\(error.map { "\($0)" } ?? "")".contains("holds 6 bytes where \(said) were written"))
                }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["true.jpg"])
        }
    }

    /// A child that breaks the rules for a file it was given publishes nothing: an outcome whose
    /// file was never committed (it would record a render that is not there), and bytes sent
    /// over the channel for a file it writes itself.
    @Test(arguments: [
        (standIn(writing: "abcdef", saying: nil), "an outcome before every file was committed"),
        (#"printf '\001\000\000\000\000\000\000\000\026x' >&0; sleep 30"#, "bytes sent for a file it writes itself"),
    ])
    func aChildThatBreaksTheRulesForItsFilePublishesNothing(script: String, violated rule: String) throws {
        try Self.withFolder { folder in
            try SandboxedRenderTests.withStandIn(script) { sandbox in
                let upload = try FileUpload(finalPath: folder + "/thumbnail.jpg")
                let violation = #expect(throws: SandboxViolation.self) {
                    try Self.thumbnail(with: sandbox, to: upload)
                }
                #expect(violation?.description.contains(rule) == true, "\(String(describing: violation))")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
    }

    /// The bound on a child's files (RLIMIT_FSIZE) is above anything a render within its pixel
    /// limit writes: 8 bytes a pixel, at least 1 GiB.
    @Test func aChildsFilesAreBoundedByItsPixelLimit() {
        #expect(RenderLimits().maxFileBytes == RenderLimits.defaultMaxPixels * 8)
        #expect(RenderLimits(maxPixels: 1000).maxFileBytes == 1 << 30)
        #expect(RenderLimits(maxPixels: Int.max).maxFileBytes == Int.max)
    }
}
