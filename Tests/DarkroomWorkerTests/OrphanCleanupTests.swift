import DarkroomDatabase
import DarkroomOperatorScripts
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import LibPQ
import Logging
import Testing

/// `Jobs/clean-orphaned-renders.sql` decides from what the layout and the storage say about
/// each file (its job, whether it is an unfinished upload), not from parsing names in SQL.
@Suite struct OrphanCleanupTests {
    static let jobsDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Jobs").path

    /// One asset with a succeeded job (its render recorded), a failed one and a queued one:
    /// what every orphan cleanup test starts from, whatever the storage.
    struct Jobs {
        let connection: DatabaseConnection
        let logger: Logger
        let asset: Int64, succeeded: Int64, failed: Int64, queued: Int64
        var recorded: StorageKey { StorageLayout.render(assetID: asset, jobID: succeeded) }

        /// `darkroom job run clean-orphaned-renders` over `files`.
        func runCleanup(minAgeMinutes: Int, files: StoredRenderFiles) throws -> OperatorScriptReport {
            let job = try #require(
                try OperatorScriptCatalog.load(from: OrphanCleanupTests.jobsDir).first {
                    $0.name == "clean-orphaned-renders"
                })
            return try OperatorScriptRunner(connection, logger: logger).run(
                job, parameters: ["min_age_minutes": String(minAgeMinutes)], files: files)
        }
    }

    static func jobs(in url: String) throws -> Jobs {
        let connection = try DatabaseConnection(url)
        let quiet = Logger(label: "orphans", factory: { _ in SwiftLogNoOpLogHandler() })
        _ = try Migrator.forTestDatabase(url).migrate(on: connection, logger: quiet)
        let asset = try AssetStore(connection).register(
            NewAsset(
                originalPath: "originals/aa/a.jpg", contentSHA256: String(repeating: "a", count: 64), byteSize: 1,
                pixelWidth: 1, pixelHeight: 1)
        ).id
        let queue = JobQueue(connection, logger: quiet)
        func claimNext() throws -> ClaimedJob {
            try #require(try queue.claim(workerID: "test", limit: 1, lease: .seconds(60)).first)
        }
        let data = Array(#"{"operations":[]}"#.utf8)
        let succeeded = try queue.enqueue(
            assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0", data: data)
        _ = try queue.complete(
            try claimNext(),
            with: NewAdjustment(
                formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0", data: data, baseAdjustmentID: nil,
                renderedPath: StorageLayout.render(assetID: asset, jobID: succeeded).rawValue,
                renderedWidth: 1, renderedHeight: 1, renderedBytes: 1))
        let failed = try queue.enqueue(
            assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0", data: data)
        _ = try queue.fail(
            try claimNext(), JobFailure.permanent(code: .jpegDamaged, message: "test").recorded, retryDelay: .zero)
        let queued = try queue.enqueue(
            assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0", data: data)
        return Jobs(
            connection: connection, logger: quiet, asset: asset, succeeded: succeeded, failed: failed, queued: queued)
    }

    @Test func deletesWhatNoJobWillEverRecordAndKeepsTheRest() throws {
        try TestDatabase.withFreshDatabase { url in
            let base = NSTemporaryDirectory() + "darkroom-orphans-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: base) }
            let storage = try StorageRoot.create(base)
            let jobs = try Self.jobs(in: url)
            let (asset, succeeded, failed, queued) = (jobs.asset, jobs.succeeded, jobs.failed, jobs.queued)
            let recorded = jobs.recorded.rawValue

            let folder = "renders/\(asset)"
            let files: [String: Bool] = [  // name → deleted
                recorded: false,
                StorageLayout.display(assetID: asset, jobID: succeeded).rawValue: false,
                "\(folder)/.\(succeeded).jpg.abcdefghijkl.partial": true,  // a crashed earlier attempt
                StorageLayout.render(assetID: asset, jobID: failed).rawValue: true,
                StorageLayout.layer(assetID: asset, jobID: failed, layer: 1).rawValue: true,
                StorageLayout.render(assetID: asset, jobID: queued).rawValue: false,
                "\(folder)/notes.txt": false,  // names no job
                "\(folder)/\(failed).thumb.webp": true,  // a failed job's rendition
                "\(folder)/\(failed).Thumb.jpg": false,  // not a name the layout builds
                "\(folder)/\(succeeded).share.jpg": true,  // a removed rendition's
            ]
            // The succeeded job's render wrote a share copy; the rendition was removed since.
            _ = try jobs.connection.query("SELECT darkroom.add_rendition('share', 'jpeg', 1024)")
            _ = try jobs.connection.query(
                """
                INSERT INTO darkroom.adjustment_rendition_files (adjustment_id, name, version, format, path, width, height, bytes)
                SELECT a.id, 'share', 1, 'jpeg', $1, 1, 1, 1 FROM darkroom.adjustments AS a WHERE a.job_id = $2
                """, [.text("\(folder)/\(succeeded).share.jpg"), .int(succeeded)])
            _ = try jobs.connection.query("SELECT darkroom.remove_rendition('share')")
            try FileManager.default.createDirectory(
                atPath: storage.path + "/" + folder, withIntermediateDirectories: true)
            let old = Date().addingTimeInterval(-7200)
            for name in files.keys {
                let path = storage.path + "/" + name
                #expect(FileManager.default.createFile(atPath: path, contents: Data([1])))
                try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
            }
            let report = try jobs.runCleanup(minAgeMinutes: 60, files: StoredRenderFiles(storage: storage))
            #expect(Set(report.deletedFiles) == Set(files.filter(\.value).keys))
            for (name, deleted) in files {
                #expect(FileManager.default.fileExists(atPath: storage.path + "/" + name) == !deleted, "\(name)")
            }
        }
    }
}
