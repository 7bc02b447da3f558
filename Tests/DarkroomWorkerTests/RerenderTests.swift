import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomImport
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import JPEGTurbo
import LibPQ
import Logging
import Testing

/// `io.darkroom.pipeline` as a later release would ship it: it writes 1.1.0 and reads 1.x up
/// to that. (Same operations, so renders must not change.)
struct PipelineEditor110: OperationEditor {
    var formatIdentifier: String { PipelineFormat.identifier }
    var currentVersion: SemanticVersion { SemanticVersion("1.1.0")! }
    var maxDataBytes: Int { PipelineFormat.maxDataBytes }
    func canRead(_ version: SemanticVersion) -> Bool { version.major == 1 && version <= currentVersion }
    func operations(from data: [UInt8], version: SemanticVersion) throws -> [ImageOperation] {
        try PipelineFormat.decode(data)
    }
    func encode(_ operations: [ImageOperation]) throws -> [UInt8] { try PipelineFormat.encode(operations) }
}

/// Bulk re-render after a version bump, with in-process workers running the old and the new
/// registry side by side, as during a rolling upgrade.
@Suite(.serialized) struct RerenderTests {
    static let oldRegistry = EditorRegistry.standard
    static let newRegistry = EditorRegistry([PipelineEditor110(), FiltsterEditor(), ChromaKeyEditor()])

    func drain(_ url: String, storage: StorageRoot, registry: EditorRegistry) -> WorkerSummary {
        var logger = Logger(label: "rerender-test")
        logger.logLevel = .warning
        let options = WorkerOptions(
            databaseURL: url, storage: storage, concurrency: 2, drain: true,
            memoryBudget: 64 << 20, registry: registry, formats: registry.claimableFormats,
            workerName: "test-\(registry.editors[PipelineFormat.identifier]!.currentVersion)")
        return Worker(options: options, logger: logger).run()
    }

    /// A small JPEG whose pixels depend on `seed`, so every asset has its own content.
    func makePhoto(_ path: String, seed: Int) throws {
        let (width, height) = (48, 32)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                pixels[index] = UInt8((x * 5 + seed) & 255)
                pixels[index + 1] = UInt8((y * 7 + (seed >> 8) * 37) & 255)
                pixels[index + 2] = UInt8((x * y + seed * 3) & 255)
            }
        }
        let file = try FileUpload(finalPath: path)
        let encoder = try JPEGEncoder(sink: file)
        try encoder.start(width: width, height: height, encoding: JPEGEncoding(quality: 90))
        try pixels.withUnsafeBytes { try encoder.writeRows(from: $0, rowStride: width * 3, rowCount: height) }
        try encoder.finish()
        try file.commit()
    }

    struct Snapshot: Equatable {
        var current: Int64?
        /// (format, version) per layer, bottom first.
        var layers: [String]
        var renderBytes: Data?
    }

    func snapshot(_ connection: DatabaseConnection, storage: StorageRoot, assetID: Int64) throws -> Snapshot {
        let store = AssetStore(connection)
        let asset = try #require(try store.asset(id: assetID))
        let chain = try store.currentChain(of: assetID)
        let bytes = try chain.last.map {
            try Data(contentsOf: URL(fileURLWithPath: try storage.resolve($0.renderedPath)))
        }
        return Snapshot(
            current: asset.currentAdjustmentID, layers: chain.map { "\($0.formatIdentifier) \($0.formatVersion)" },
            renderBytes: bytes)
    }

    @Test func everyAffectedAssetEndsOnTheNewVersionAndNothingElseChanges() throws {
        try TestDatabase.withFreshDatabase { url in
            let root = NSTemporaryDirectory() + "darkroom-rerender-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: root) }
            let storage = try StorageRoot.create(root)
            try storage.prepare()
            let connection = try DatabaseConnection(url)
            _ = try Migrator.forTestDatabase(url).migrate(on: connection, logger: Logger(label: "migrate"))
            let importer = Importer(storage: storage, connection: connection, logger: Logger(label: "import"))
            let sources = root + "/incoming"
            try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
            var assets: [Int64] = []
            for seed in 0..<320 {
                let path = sources + "/\(seed).jpg"
                try makePhoto(path, seed: seed)
                assets.append(try importer.importFile(path).assetID)
            }
            // 0..<120: pipeline only; 120..<200: pipeline under Filtster; 200..<280: Filtster only;
            // 280..<320: never edited.
            let pipelined = Array(assets[0..<200])
            let layered = Array(assets[120..<200])
            let filtsterOnly = Array(assets[200..<280])
            let sepia = #"{"operations":[{"op":"sepia","intensity":0.8},{"op":"vignette","intensity":1,"radius":0.6}]}"#
            let filtster = FiltsterSettings(vignetteIntensity: 0.5, vignetteRadius: 0.9, sepiaIntensity: 0.4).archive()
            func enqueue(_ ids: [Int64], _ identifier: String, _ version: String, _ data: [UInt8]) throws {
                _ = try connection.query(
                    "SELECT count(*) FROM darkroom.enqueue_edits($1::bigint[], $2, $3, $4::bytea)",
                    [
                        .text("{" + ids.map(String.init).joined(separator: ",") + "}"),
                        .text(identifier), .text(version), .bytes(data),
                    ])
            }
            try enqueue(pipelined, "io.darkroom.pipeline", "1.0.0", Array(sepia.utf8))
            try enqueue(layered + filtsterOnly, "com.shinobicontrols.filster", "1.0", filtster)
            let first = drain(url, storage: storage, registry: Self.oldRegistry)
            try #require(first.failed == 0 && first.succeeded == 360, "\(first)")
            let before = try Dictionary(
                uniqueKeysWithValues: assets.map { ($0, try snapshot(connection, storage: storage, assetID: $0)) })

            let queue = JobQueue(connection, logger: Logger(label: "queue"))
            let queued = try queue.enqueueRerender(
                formatIdentifier: "io.darkroom.pipeline", belowVersion: "1.1.0", batch: "bump")
            #expect(queued == 200, "every asset whose chain has a pipeline layer, including those under Filtster")
            #expect(
                try queue.enqueueRerender(
                    formatIdentifier: "io.darkroom.pipeline", belowVersion: "1.1.0", batch: "bump") == 0,
                "equivalent jobs already queued are skipped")

            // An old worker in the fleet leaves the jobs alone: they need 1.1.0.
            let old = drain(url, storage: storage, registry: Self.oldRegistry)
            #expect(old.processed == 0, "\(old)")
            let waiting = try #require(try queue.progress(ofBatch: "bump"))
            #expect(waiting.queued == 200 && waiting.done == 0)

            let new = drain(url, storage: storage, registry: Self.newRegistry)
            #expect(new.succeeded == 200 && new.failed == 0, "\(new)")
            let done = try #require(try queue.progress(ofBatch: "bump"))
            #expect(done.succeeded == 200 && done.isFinished)

            for id in assets {
                let was = try #require(before[id])
                let now = try snapshot(connection, storage: storage, assetID: id)
                if pipelined.contains(id) {
                    let expected = was.layers.map {
                        $0 == "io.darkroom.pipeline 1.0.0" ? "io.darkroom.pipeline 1.1.0" : $0
                    }
                    #expect(now.layers == expected, "asset \(id): every pipeline layer is on 1.1.0, the rest as it was")
                    #expect(now.current != was.current)
                    #expect(now.renderBytes == was.renderBytes, "asset \(id): same operations, same pixels")
                } else {
                    #expect(now == was, "asset \(id) does not use the pipeline and is untouched")
                }
            }
            // The replayed data says the same as before (the pipeline keeps the author's JSON).
            let data = try connection.query(
                """
                SELECT DISTINCT convert_from(a.data, 'UTF8') AS json FROM darkroom.assets s
                  JOIN darkroom.adjustments a ON a.asset_id = s.id AND a.format_version = '1.1.0'
                """
            ).map { try $0["json"].decode(String.self) }
            #expect(data == [sepia])
            let filtsterData = try connection.query(
                """
                SELECT a.data FROM darkroom.adjustments a WHERE a.rerender_of IS NOT NULL
                   AND a.format_identifier = 'com.shinobicontrols.filster'
                """
            ).map { try FiltsterSettings(archive: try $0["data"].decode([UInt8].self)) }
            #expect(filtsterData.count == layered.count)
            #expect(filtsterData.allSatisfy { $0 == (try? FiltsterSettings(archive: filtster)) })
        }
    }
}
