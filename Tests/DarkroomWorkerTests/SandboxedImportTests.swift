import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImport
import DarkroomMetadata
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import LibPQ
import Logging
import Testing

/// `import` parses what it is given (the header, EXIF, XMP) in a decoding child, as a worker's
/// renders are: the same facts as in the importer's own process for real photos from phones and
/// cameras, the same refusals in the same words for bytes that are no photo, and a child that
/// crashes refuses its file alone.
@Suite(.serialized) struct SandboxedImportTests {
    static let photos = [
        Fixtures.exifSample("gps/DSCN0010.jpg").path,
        Fixtures.exifSample("orientation/landscape_6.jpg").path,
        Fixtures.exifSample("mobile/HMD_Nokia_8.3_5G.jpg").path,
        Fixtures.root.appendingPathComponent("corpus/osxphotos/IMG_1853.HEIC").path,
        // Its Exif item is 192 182 bytes: more than a JPEG's APP1 holds.
        Fixtures.root.appendingPathComponent("corpus/pillow_heif/xiaomi.heic").path,
        Fixtures.root.appendingPathComponent("corpus/libavif/seine_hdr_gainmap_srgb.avif").path,
    ]

    static func open(_ path: String) -> () throws -> any ByteSource {
        { try FileSource(path: path, name: path) }
    }

    @Test func theChildReadsTheFactsThisProcessReads() throws {
        let sandbox = DecoderSandbox(executable: DarkroomCommand.executable.path)
        try sandbox.check()
        var (withPosition, withDate) = (0, 0)
        for path in Self.photos {
            let here = try PhotoFacts.read(from: try Self.open(path)(), name: path)
            let there = try sandbox.facts(of: path, open: Self.open(path))
            #expect(there == here, "\(path)")
            if here.metadata.latitude != nil { withPosition += 1 }
            if here.metadata.creationDate != nil { withDate += 1 }
        }
        // The comparison covers what matters: positions and dates were read, not left empty.
        #expect(withPosition >= 3 && withDate >= 5, "\(withPosition) positions, \(withDate) dates")
        #expect(try PhotoFacts.read(from: try Self.open(Self.photos[1])(), name: "").orientation == 6)
    }

    @Test func bytesThatAreNoPhotoAreRefusedAlikeWithoutQuotingThem() throws {
        let sandbox = DecoderSandbox(executable: DarkroomCommand.executable.path)
        let folder = NSTemporaryDirectory() + "darkroom-facts-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let secret = "password=hunter2 \u{1B}[31m"
        for (name, bytes) in [
            ("notes.jpg", Array(secret.utf8)),
            ("half.heic", Array(try Data(contentsOf: URL(fileURLWithPath: Self.photos[3])).prefix(2000))),
        ] {
            let path = folder + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let here = #expect(throws: PhotoFactsError.self) {
                try PhotoFacts.read(from: try Self.open(path)(), name: path)
            }
            let there = #expect(throws: PhotoFactsError.self) { try sandbox.facts(of: path, open: Self.open(path)) }
            #expect(here?.code == .notAPhoto && there?.code == .notAPhoto, "\(name)")
            #expect(there?.object == path && there?.message == here?.message, "\(name): \(String(describing: there))")
            #expect(there?.message.contains("hunter2") == false && there?.message.contains("\u{1B}") == false)
        }
    }

    /// Apple Photos' sidecars, read in a child: the same edit as read here, and the same
    /// refusals for one that is no sidecar, one darkroom cannot read and one too large.
    @Test func theChildReadsTheSidecarsThisProcessReads() throws {
        let sandbox = DecoderSandbox(executable: DarkroomCommand.executable.path)
        let apple = Fixtures.root.appendingPathComponent("apple")
        var read = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: apple.path).sorted()
        where name.hasSuffix(".AAE") {
            let path = apple.appendingPathComponent(name).path
            let bytes = try FileSource(path: path).readAll(upTo: AppleSidecar.maxBytes + 1)
            let here = Result { try AppleSidecar.decodeForImport(bytes) }
            let there = Result { try sandbox.sidecar(of: path, open: Self.open(path)) }
            switch (here, there) {
            case (.success(let here), .success(let there)):
                #expect(there == here, "\(name)")
                read += 1
            case (.failure(let here as AdjustmentError), .failure(let there as AdjustmentError)):
                #expect(there == here, "\(name)")
            default: Issue.record("\(name): \(here) here, \(there) in the child")
            }
        }
        #expect(read >= 4)
        let folder = NSTemporaryDirectory() + "darkroom-sidecars-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, bytes, code) in [
            ("garbage.AAE", Array("<plist><dict><key>a".utf8), AdjustmentError.Code.malformedData),
            ("huge.AAE", [UInt8](repeating: 0x20, count: AppleSidecar.maxBytes + 10), .dataTooLarge),
        ] {
            let path = folder + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let here = #expect(throws: AdjustmentError.self) {
                try AppleSidecar.decodeForImport(try FileSource(path: path).readAll(upTo: AppleSidecar.maxBytes + 1))
            }
            let there = #expect(throws: AdjustmentError.self) { try sandbox.sidecar(of: path, open: Self.open(path)) }
            #expect(here?.code == code && there == here, "\(name): \(String(describing: there))")
        }
    }

    /// A child that crashes on a photo refuses that photo, names it and the signal, and records
    /// nothing; the import goes on with the next one.
    @Test func aChildThatCrashesRefusesItsFileAndTheImportGoesOn() throws {
        try SandboxedRenderTests.withStandIn("kill -SEGV $$") { crashing in
            try TestDatabase.withFreshDatabase { url in
                let root = NSTemporaryDirectory() + "darkroom-sandboxed-import-" + UUID().uuidString
                defer { try? FileManager.default.removeItem(atPath: root) }
                let storage = try StorageRoot.create(root + "/storage")
                let connection = try DatabaseConnection(url)
                _ = try Migrator().migrate(on: connection, logger: .quiet)
                let refusing = Importer(storage: storage, connection: connection, logger: .quiet, sandbox: crashing)
                let refused = #expect(throws: ImportError.self) { try refusing.importFile(Self.photos[0]) }
                #expect(refused?.code == .decodingFailed, "\(String(describing: refused))")
                #expect(refused?.object == Self.photos[0])
                #expect(refused?.description.contains("SIGSEGV") == true, "\(String(describing: refused))")
                #expect(try scalar(connection, "SELECT count(*) FROM darkroom.assets").int64 == 0)
                let sandbox = DecoderSandbox(executable: DarkroomCommand.executable.path)
                let importer = Importer(storage: storage, connection: connection, logger: .quiet, sandbox: sandbox)
                let imported = try importer.importFile(Self.photos[0])
                #expect(imported.status == .imported)
                let row = try connection.query(
                    "SELECT pixel_width, latitude FROM darkroom.assets WHERE id = $1", [.int(imported.assetID)])[0]
                #expect(try row["pixel_width"].decode(Int.self) > 0)
                #expect(try row["latitude"].decode(Double?.self) != nil)
            }
        }
    }
}
