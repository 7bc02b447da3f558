import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImport
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import LibPQ
import Logging
import Testing

/// A damaged input is reported as what it is: an original (re-import it) or the render of a
/// layer an edit goes on top of (render the asset again) — never one for the other. An
/// original that is only irregular (no EOI marker, bytes after it) renders, and the warning
/// stays on the job and on the adjustment whose render met it.
@Suite(.serialized) struct DamagedInputTests {
    struct Fixture {
        let url: String
        let storage: StorageRoot
        let connection: DatabaseConnection
        let asset: Int64

        func drain() -> WorkerSummary {
            var logger = Logger(label: "damaged-input-test")
            logger.logLevel = .critical
            return Worker(
                options: WorkerOptions(
                    databaseURL: url, storage: storage, drain: true, workerName: "damaged-input-test"),
                logger: logger
            ).run()
        }

        func enqueue(_ identifier: String, _ version: String, _ data: [UInt8]) throws -> Int64 {
            try enqueue(identifier, version, data, asset: asset)
        }

        /// Cuts a stored file to half its length, as a failing disk or an interrupted copy would.
        func truncate(_ key: String) throws {
            let path = try storage.resolve(key)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
        }

        /// (state, last_error, attempts) of a job.
        func outcome(_ job: Int64) throws -> (state: String, error: String, attempts: Int) {
            let row = try connection.query(
                "SELECT state, last_error, attempts FROM darkroom.jobs WHERE id = $1", [.int(job)])[0]
            return (
                try row["state"].decode(String.self), try row["last_error"].decode(String.self),
                try row["attempts"].decode(Int.self)
            )
        }

        var originalKey: String {
            get throws { try originalKey(of: asset) }
        }

        func originalKey(of asset: Int64) throws -> String {
            try connection.query("SELECT original_path FROM darkroom.assets WHERE id = $1", [.int(asset)])[0][0].decode(
                String.self)
        }

        /// Imports `bytes` as a photo of its own (import reads only the header, so a cut or
        /// irregular file imports as it would from a phone).
        func importPhoto(_ bytes: [UInt8], name: String) throws -> Int64 {
            let path = NSTemporaryDirectory() + "darkroom-\(UUID().uuidString)-\(name)"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try Importer(storage: storage, connection: connection, logger: Logger(label: "import")).importFile(
                path
            ).assetID
        }

        func enqueue(_ identifier: String, _ version: String, _ data: [UInt8], asset: Int64) throws -> Int64 {
            try connection.query(
                "SELECT darkroom.enqueue_edit($1, $2, $3, $4::bytea) AS id",
                [.int(asset), .text(identifier), .text(version), .bytes(data)])[0]["id"].decode(Int64.self)
        }

        /// The render files under the storage's renders folder.
        func renders() throws -> [String] {
            let folder = try storage.resolve("renders")
            return ((try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []).filter {
                $0.hasSuffix(".jpg")
            }.sorted()
        }
    }

    func withFixture(_ body: (Fixture) throws -> Void) throws {
        try TestDatabase.withFreshDatabase { url in
            let root = NSTemporaryDirectory() + "darkroom-damaged-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: root) }
            let storage = try StorageRoot.create(root)
            let connection = try DatabaseConnection(url)
            _ = try Migrator.forTestDatabase(url).migrate(on: connection, logger: Logger(label: "migrate"))
            // Copied in first, so truncating the stored original never touches the fixture.
            let copy = root + "/incoming.jpg"
            try FileManager.default.copyItem(atPath: Fixtures.exifSample("gps/DSCN0010.jpg").path, toPath: copy)
            let asset = try Importer(storage: storage, connection: connection, logger: Logger(label: "import"))
                .importFile(copy).assetID
            try body(Fixture(url: url, storage: storage, connection: connection, asset: asset))
        }
    }

    static let sepia = Array(#"{"operations":[{"op":"sepia","intensity":0.6}]}"#.utf8)

    @Test func aTruncatedOriginalIsBlamedOnTheOriginal() throws {
        try withFixture { f in
            let original = try f.originalKey
            try f.truncate(original)
            let job = try f.enqueue("io.darkroom.pipeline", "1.0.0", Self.sepia)
            #expect(f.drain().failed == 1)
            let outcome = try f.outcome(job)
            #expect(outcome.state == "failed" && outcome.attempts == 1, "damage is permanent: \(outcome)")
            #expect(
                outcome.error.hasPrefix(
                    "jpeg_damaged: \(original): the original of asset \(f.asset) is damaged: the file ends inside its scan data"
                ),
                "\(outcome.error)")
            #expect(outcome.error.contains("re-import it from an intact copy"), "\(outcome.error)")
            #expect(!outcome.error.contains("renders/"), "\(outcome.error)")
        }
    }

    /// Filtster layers on top of the pipeline's render (the can-handle rule), so a damaged
    /// render of that layer is what the edit reads; the original is intact.
    @Test func aTruncatedBaseLayerRenderIsBlamedOnThatRender() throws {
        try withFixture { f in
            let base = try f.enqueue("io.darkroom.pipeline", "1.0.0", Self.sepia)
            #expect(f.drain().succeeded == 1)
            let layer = try f.connection.query(
                "SELECT id, rendered_path FROM darkroom.adjustments WHERE job_id = $1", [.int(base)])[0]
            let layerID = try layer["id"].decode(Int64.self)
            let layerKey = try layer["rendered_path"].decode(String.self)
            #expect(layerKey == StorageLayout.render(assetID: f.asset, jobID: base).rawValue)
            try f.truncate(layerKey)

            let filtster = FiltsterSettings(vignetteIntensity: 2, vignetteRadius: 0.8, sepiaIntensity: 0.3).archive()
            let job = try f.enqueue("com.shinobicontrols.filster", "1.0", filtster)
            #expect(f.drain().failed == 1)
            let outcome = try f.outcome(job)
            #expect(outcome.state == "failed" && outcome.attempts == 1, "damage is permanent: \(outcome)")
            #expect(
                outcome.error.hasPrefix(
                    "jpeg_damaged: \(layerKey): the render of adjustment \(layerID) (the layer this edit goes on top of) is damaged: the file ends inside its scan data"
                ),
                "\(outcome.error)")
            #expect(
                outcome.error.contains("render asset \(f.asset)'s chain again from its original"), "\(outcome.error)")
            #expect(
                outcome.error.contains("darkroom rerender --format-identifier io.darkroom.pipeline"), "\(outcome.error)"
            )
            let original = try f.originalKey
            #expect(
                !outcome.error.contains("re-import") && !outcome.error.contains(original),
                "the original is fine: \(outcome.error)")
            #expect(
                try f.connection.query("SELECT count(*) FROM darkroom.adjustments")[0][0].decode(Int64.self) == 1,
                "nothing recorded")
        }
    }

    @Test func aMissingBaseLayerRenderIsNamedWithItsRemedy() throws {
        try withFixture { f in
            let base = try f.enqueue("io.darkroom.pipeline", "1.0.0", Self.sepia)
            #expect(f.drain().succeeded == 1)
            let layerKey = StorageLayout.render(assetID: f.asset, jobID: base).rawValue
            try FileManager.default.removeItem(atPath: try f.storage.resolve(layerKey))
            let filtster = FiltsterSettings(vignetteIntensity: 2, vignetteRadius: 0.8, sepiaIntensity: 0.3).archive()
            let job = try f.enqueue("com.shinobicontrols.filster", "1.0", filtster)
            #expect(f.drain().failed == 1)
            let outcome = try f.outcome(job)
            #expect(
                outcome.error.hasPrefix("base_render_missing: \(layerKey): the render of adjustment "),
                "\(outcome.error)")
            #expect(
                outcome.error.contains("is missing from the storage; re-render asset \(f.asset)"), "\(outcome.error)")
        }
    }

    /// No EOI marker, or bytes after it: the job succeeds, and the warning, with the original's
    /// key and the byte offset, is on the job and on the adjustment; a re-render, which reads
    /// the original again, records it again on the layer rendered from it.
    @Test func anIrregularOriginalRendersAndItsWarningIsRecorded() throws {
        try withFixture { f in
            let intact = try Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg"))
            let withoutEOI = DamagedJPEGs.withoutEOI(intact)
            let noEOI = try f.importPhoto(withoutEOI, name: "no-eoi.jpg")
            let trailer = try f.importPhoto(DamagedJPEGs.withTrailingBytes(intact, count: 300), name: "trailer.jpg")
            let jobs = [
                try f.enqueue("io.darkroom.pipeline", "1.0.0", Self.sepia, asset: noEOI),
                try f.enqueue("io.darkroom.pipeline", "1.0.0", Self.sepia, asset: trailer),
            ]
            #expect(f.drain().succeeded == 2)

            let queue = JobQueue(f.connection, logger: .quiet)
            let expected = [
                RecordedWarning(
                    code: "jpeg.missing_eoi",
                    message:
                        "the file ends at byte \(withoutEOI.count) without its EOI marker, after complete image data; rendered as is",
                    object: try f.originalKey(of: noEOI), byteOffset: withoutEOI.count),
                RecordedWarning(
                    code: "jpeg.trailing_bytes",
                    message: "300 bytes follow the EOI marker at byte \(intact.count); ignored",
                    object: try f.originalKey(of: trailer), byteOffset: intact.count, byteCount: 300),
            ]
            for (job, (asset, warning)) in zip(jobs, zip([noEOI, trailer], expected)) {
                #expect(try queue.job(id: job)?.state == .succeeded)
                #expect(try queue.job(id: job)?.warnings == [warning])
                #expect(try AssetStore(f.connection).adjustments(of: asset).map(\.warnings) == [[warning]])
            }
            let renders = try f.renders()
            #expect(renders.count == 4, "both renders and their display copies: \(renders)")

            // A Filtster edit reads the pipeline layer's render, which is intact: no warning.
            let filtster = FiltsterSettings(vignetteIntensity: 2, vignetteRadius: 0.8, sepiaIntensity: 0.3).archive()
            let onTop = try f.enqueue("com.shinobicontrols.filster", "1.0", filtster, asset: noEOI)
            #expect(f.drain().succeeded == 1)
            #expect(try queue.job(id: onTop)?.warnings == [])
            // Re-rendering the chain reads the original again: its bottom layer meets the missing EOI.
            #expect(try queue.enqueueRerender(formatIdentifier: "io.darkroom.pipeline") == 2)
            #expect(f.drain().succeeded == 2)
            let replayed = try AssetStore(f.connection).adjustments(of: noEOI).suffix(2)
            #expect(replayed.map(\.warnings) == [[expected[0]], []], "\(replayed.map(\.warnings))")
            let replayJob = try #require(replayed.last?.jobID)
            #expect(try queue.job(id: replayJob)?.warnings == [expected[0]], "the job keeps all its layers' warnings")
        }
    }

    /// Cut inside its scan data, whether made so here or a real phone file that stopped at a
    /// 512-byte boundary: the job fails at once with jpeg_damaged, nothing is rendered or recorded.
    @Test func anOriginalCutInsideItsScanDataFailsAndWritesNothing() throws {
        try withFixture { f in
            let cut = DamagedJPEGs.cutInScan(try Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg")))
            let nokia = try Fixtures.bytes(of: Fixtures.exifSample("mobile/HMD_Nokia_8.3_5G.jpg"))
            let assets = [
                try f.importPhoto(cut, name: "cut.jpg"), try f.importPhoto(nokia, name: "HMD_Nokia_8.3_5G.jpg"),
            ]
            let jobs = try assets.map { try f.enqueue("io.darkroom.pipeline", "1.0.0", Self.sepia, asset: $0) }
            #expect(f.drain().failed == 2)
            let queue = JobQueue(f.connection, logger: .quiet)
            for (job, (asset, length)) in zip(jobs, zip(assets, [cut.count, nokia.count])) {
                let failed = try #require(try queue.job(id: job))
                #expect(failed.state == .failed && failed.attempts == 1 && failed.warnings.isEmpty)
                #expect(failed.errors.map(\.failureCode) == [.jpegDamaged])
                let key = try f.originalKey(of: asset)
                let error = failed.lastError ?? ""
                #expect(
                    error.hasPrefix(
                        "jpeg_damaged: \(key): the original of asset \(asset) is damaged: the file ends inside its scan data"
                    ),
                    "\(error)")
                #expect(error.contains("(at byte \(length))"), "\(error)")
                #expect(try AssetStore(f.connection).adjustments(of: asset).isEmpty)
            }
            let renders = try f.renders()
            #expect(renders.isEmpty, "\(renders)")
        }
    }

    /// `darkroom render`, as a user runs it: the warning on stderr with its code, or the refusal.
    @Test func darkroomRenderPrintsTheWarningOrRefusesTheCut() throws {
        let folder = NSTemporaryDirectory() + "darkroom-render-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let intact = try Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg"))
        let noEOI = folder + "/no-eoi.jpg"
        let cut = folder + "/cut.jpg"
        try Data(DamagedJPEGs.withoutEOI(intact)).write(to: URL(fileURLWithPath: noEOI))
        try Data(DamagedJPEGs.cutInScan(intact)).write(to: URL(fileURLWithPath: cut))
        let command = DarkroomCommand(databaseURL: "", storage: folder)

        let rendered = try command.run("render", noEOI, "-o", folder + "/out.jpg")
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(
            rendered.stderr.contains(
                "darkroom: warning: jpeg.missing_eoi: \(noEOI): the file ends at byte \(intact.count - 2) "
                    + "without its EOI marker"), "\(rendered.stderr)")
        let refused = try command.run("render", cut, "-o", folder + "/refused.jpg")
        #expect(
            refused.status != 0 && refused.stderr.contains("\(cut): the file ends inside its scan data"),
            "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/refused.jpg"))
    }
}
