import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// A worker logged in as a member of the worker role runs every SQL call the worker and the
/// importer make (JobQueue, AssetStore), and can do nothing else.
@Suite("Worker role")
struct WorkerRoleTests {
    let pipeline = [ClaimableFormat(identifier: "io.darkroom.pipeline", minVersion: "1.0", maxVersion: "1.0.0")]
    let identity = WorkerIdentity(name: "walter/0", host: "host-1", pid: 42)

    /// A migrated database, an operator session and a worker session.
    func withWorker(
        _ body: (_ owner: DatabaseConnection, _ operatorSession: DatabaseConnection, _ worker: DatabaseConnection)
            throws -> Void
    ) throws {
        try withQueueDatabase { url, owner in
            let roles = TestDatabase.accessRoles(forDatabaseAt: url)
            var sessions: [DatabaseConnection] = []
            for (login, group) in [("olga", roles.operatorRole!), ("walter", roles.worker!)] {
                let name = TestDatabase.roleName(login, forDatabaseAt: url)
                try owner.execute(
                    "CREATE ROLE \(try owner.quotedIdentifier(name)) LOGIN IN ROLE \(try owner.quotedIdentifier(group))"
                )
                sessions.append(try DatabaseConnection(try TestDatabase.url(url, as: name)))
            }
            try body(owner, sessions[0], sessions[1])
        }
    }

    @Test func importsRegisterInsideTheStorageRootOnly() throws {
        try withWorker { _, _, worker in
            let store = AssetStore(worker)
            let registered = try store.register(sampleAsset(1, path: "originals/01/0101.jpg"))
            #expect(registered.created)
            let again = try store.register(sampleAsset(1, path: "incoming/copy.jpg"))
            #expect(again.id == registered.id && !again.created)
            #expect(
                try store.asset(contentSHA256: sampleAsset(1).contentSHA256)?.originalPath == "originals/01/0101.jpg")
            for path in ["/etc/passwd", "../outside.jpg", "originals/../../x.jpg", "originals//x.jpg", ""] {
                let refused = #expect(throws: QueueError.self, "\(path)") {
                    try store.register(sampleAsset(2, path: path))
                }
                #expect(refused?.code == .invalidAsset, "\(path)")
            }
            let badOrientation = #expect(throws: QueueError.self) {
                var asset = sampleAsset(3)
                asset.orientation = 9
                _ = try store.register(asset)
            }
            #expect(badOrientation?.description.contains("assets_orientation_is_exif") == true)
        }
    }

    @Test func aWorkerClaimsHeartbeatsReadsAndReports() throws {
        try withWorker { owner, operatorSession, worker in
            let asset = try AssetStore(worker).register(sampleAsset(1, path: "originals/01/0101.jpg")).id
            let operatorQueue = JobQueue(operatorSession, logger: .quiet)
            let first = try operatorQueue.enqueueSample(assetID: asset)
            let second = try operatorQueue.enqueueSample(assetID: asset)
            let queue = JobQueue(worker, logger: .quiet)
            let store = AssetStore(worker)

            let job = try #require(
                try queue.claim(workerID: identity.name, limit: 1, lease: .seconds(60), formats: pipeline).first)
            #expect(job.id == first)
            #expect(
                try queue.heartbeat(identity, lease: .seconds(60), jobs: [job], formats: pipeline)[job.id]?.held == true
            )
            #expect(try store.asset(id: asset)?.originalPath == "originals/01/0101.jpg")
            #expect(try store.currentChain(of: asset).isEmpty)
            #expect(
                try !store.rerenderNeeded(assetID: asset, formatIdentifier: "io.darkroom.pipeline", belowVersion: "2.0")
            )
            var outside = sampleAdjustment(for: job)
            outside.renderedPath = "/etc/cron.d/darkroom"
            let refused = #expect(throws: DatabaseError.self) { try queue.complete(job, with: outside) }
            #expect(refused?.sqlState == "22023")
            #expect(refused?.message.contains("is absolute") == true)
            let adjustment = try queue.complete(job, with: sampleAdjustment(for: job))
            #expect(try store.currentChain(of: asset).map(\.id) == [adjustment])
            #expect(try store.currentAdjustment(of: asset)?.id == adjustment)
            #expect(try queue.completionCommitted(job) == .some(adjustment))

            let next = try #require(
                try queue.claim(workerID: identity.name, limit: 1, lease: .seconds(60), formats: pipeline).first)
            #expect(next.id == second)
            #expect(
                try queue.fail(
                    next, .transient(code: "storage_io", message: "the disk hiccupped"), retryDelay: .zero)
                    == .queued)
            let retried = try #require(
                try queue.claim(workerID: identity.name, limit: 1, lease: .seconds(60), formats: pipeline).first)
            try queue.release(retried, reason: "shutting down")
            #expect(try !queue.hasExpiredLeases())
            #expect(try queue.rescueExpiredLeases() == 0)
            try queue.workerStopped(identity)
            #expect(try scalar(owner, "SELECT count(*) FROM darkroom.workers").int == 0)
            #expect(
                try scalar(owner, "SELECT state FROM darkroom.jobs WHERE id = $1", [.int(second)]).string == "queued")
        }
    }

    /// A renditions job, as the worker role runs it: what the top layer lacks, then its files
    /// recorded on that layer, each replacing the older version's file, whose path comes back
    /// for deletion; the look does not move.
    static let leftOut = RecordedWarning(
        code: "rendition.gain_map_left_out", message: "rendition thumb is standard range only")

    @Test func aWorkerRecordsTheRenditionsALayerLacks() throws {
        try withWorker { owner, operatorSession, worker in
            let asset = try AssetStore(worker).register(sampleAsset(1, path: "originals/01/0101.jpg")).id
            _ = try JobQueue(operatorSession, logger: .quiet).enqueueSample(assetID: asset)
            let queue = JobQueue(worker, logger: .quiet)
            let store = AssetStore(worker)
            let edit = try #require(
                try queue.claim(workerID: identity.name, limit: 1, lease: .seconds(60), formats: pipeline).first)
            // A render that wrote the display copy at the size of its first version.
            var rendered = sampleAdjustment(for: edit)
            rendered.renderedWith = #"{"output":{"display_longest_side":2048}}"#
            let layer = try #require(try queue.complete(edit, with: rendered))
            _ = try operatorSession.query("SELECT darkroom.add_rendition('thumb', 'webp', 320)")
            #expect(
                try store.missingRenditions(ofAdjustment: layer) == [
                    MissingRendition(name: "thumb", version: 1, replaces: nil)
                ])

            func runRenditionsJob(version: Int) throws -> (current: Int64?, replaced: [String]) {
                _ = try owner.query(
                    "INSERT INTO darkroom.jobs (asset_id, kind) VALUES ($1, 'renditions')", [.int(asset)])
                let job = try #require(
                    try queue.claim(workerID: identity.name, limit: 1, lease: .seconds(60), formats: []).first)
                #expect(job.work == .renditions)
                let file =
                    #"{"name":"thumb","version":\#(version),"format":"webp","path":"renders/01/\#(job.id).thumb.webp","#
                    + #""width":320,"height":240,"bytes":999}"#
                #expect(throws: DatabaseError.self) {
                    try queue.complete(
                        job,
                        with: JobResult(.renditions(adjustmentID: layer, files: [], warnings: []), expectedCurrent: nil)
                    )
                }
                return try queue.completeWritingFiles(
                    job,
                    with: JobResult(
                        .renditions(adjustmentID: layer, files: [file], warnings: [Self.leftOut]), expectedCurrent: nil)
                )
            }
            let first = try runRenditionsJob(version: 1)
            #expect(first.current == layer && first.replaced.isEmpty)
            #expect(try store.missingRenditions(ofAdjustment: layer).isEmpty)
            let firstPath = try #require(try AssetStore(owner).renditions(ofAdjustment: layer).first?.path)

            _ = try operatorSession.query("SELECT darkroom.add_rendition('thumb', 'avif', 400)")
            #expect(try store.missingRenditions(ofAdjustment: layer).map(\.replaces) == [firstPath])
            let second = try runRenditionsJob(version: 2)
            #expect(second.current == layer && second.replaced == [firstPath])
            let files = try AssetStore(owner).renditions(ofAdjustment: layer)
            #expect(files.map(\.version) == [2] && files.map(\.state) == ["current"])
            #expect(try store.currentAdjustment(of: asset)?.id == layer)
            #expect(
                try scalar(owner, "SELECT count(*) FROM darkroom.asset_history WHERE asset_id = $1", [.int(asset)]).int
                    == 1)
            // What the render met is kept on the job, as a layer's warnings are.
            let codes = try scalar(
                owner,
                """
                SELECT string_agg(w ->> 'code', ',') FROM darkroom.jobs AS j, jsonb_array_elements(j.warnings) AS w
                 WHERE j.kind = 'renditions'
                """)
            #expect(codes.string == "rendition.gain_map_left_out,rendition.gain_map_left_out")
        }
    }

    @Test func aWorkerCannotQueueEditOrReadTheQueue() throws {
        try withWorker { owner, _, worker in
            let asset = try registerAsset(1, on: owner)
            func refusal(_ sql: String) -> SQLState? {
                do {
                    _ = try worker.query(sql)
                    return nil
                } catch {
                    return (error as? DatabaseError)?.postgresError.sqlState
                }
            }
            #expect(
                refusal("SELECT darkroom.enqueue_edit(\(asset), 'io.darkroom.pipeline', '1.0', '{}'::jsonb)") == "42501"
            )
            #expect(refusal("SELECT darkroom.cancel_job(1)") == "42501")
            #expect(refusal("UPDATE darkroom.jobs SET state = 'failed'") == "42501")
            #expect(refusal("UPDATE darkroom.assets SET current_adjustment_id = NULL") == "42501")
            #expect(
                refusal(
                    "INSERT INTO darkroom.adjustments (asset_id, format_identifier, format_version, data, rendered_path, rendered_width, rendered_height, rendered_bytes) VALUES (\(asset), 'a.b', '1.0', '\\x00', 'r.jpg', 1, 1, 1)"
                ) == "42501")
            #expect(refusal("SELECT * FROM darkroom.jobs") == "42501")
            #expect(refusal("SELECT * FROM darkroom.queue_summary") == "42501")
            #expect(refusal("SELECT * FROM darkroom.audit_trail") == "42501")
            #expect(refusal("SELECT darkroom.prune_jobs()") == "42501")
            #expect(refusal("UPDATE darkroom.settings SET value = '9' WHERE name = 'crash_limit'") == "42501")
        }
    }

    /// The worker API refuses what a worker must never send, whoever calls it.
    @Test func reportsAndHeartbeatsValidateWhatTheyTake() throws {
        try withWorker { _, operatorSession, worker in
            let asset = try AssetStore(worker).register(sampleAsset(1)).id
            _ = try JobQueue(operatorSession, logger: .quiet).enqueueSample(assetID: asset)
            let queue = JobQueue(worker, logger: .quiet)
            let job = try #require(try queue.claim(workerID: identity.name, limit: 1, lease: .seconds(60)).first)
            func sqlState(_ sql: String, _ binds: [PostgresBind] = []) -> SQLState? {
                do {
                    _ = try worker.query(sql, binds)
                    return nil
                } catch {
                    return (error as? DatabaseError)?.postgresError.sqlState
                }
            }
            #expect(
                sqlState("SELECT * FROM darkroom.heartbeat('w', 'h', 1, 60, '{}', '{}', '{\"not\": \"a list\"}')")
                    == "22023")
            #expect(sqlState("SELECT * FROM darkroom.heartbeat('', 'h', 1, 60, '{}', '{}')") == "22023")
            #expect(sqlState("SELECT * FROM darkroom.heartbeat('w', 'h', 0, 60, '{}', '{}')") == "22023")
            #expect(
                sqlState("SELECT * FROM darkroom.heartbeat('w', 'h', 1, 60, '{}', '{}', '[]', false, 'latest')")
                    == "22023")
            // A worker's release shows in worker_status; one that does not say (an older
            // release, calling with eight arguments) shows none.
            let released = WorkerIdentity(name: "new/0", host: "h", pid: 7, release: "0.24.0")
            _ = try queue.heartbeat(released, lease: .seconds(60), jobs: [], formats: [])
            _ = try worker.query("SELECT * FROM darkroom.heartbeat('old/0', 'h', 8, 60, '{}', '{}', '[]', false)")
            let releases = try operatorSession.query(
                "SELECT name, release FROM darkroom.worker_status WHERE name IN ('new/0', 'old/0') ORDER BY name"
            ).map { try $0["release"].decode(String?.self) }
            #expect(releases == ["0.24.0", nil])
            // So does its memory budget's use; an older worker says none.
            _ = try queue.heartbeat(
                released, lease: .seconds(60), jobs: [], formats: [],
                memory: WorkerMemoryReport(reservedBytes: 48 << 20, jobsWaiting: 2))
            let memory = try JobQueue(operatorSession, logger: .quiet).workers()
                .filter { ["new/0", "old/0"].contains($0.name) }.map(\.memory)
            #expect(memory == [WorkerMemoryReport(reservedBytes: 48 << 20, jobsWaiting: 2), nil])
            #expect(
                sqlState("SELECT * FROM darkroom.heartbeat('w', 'h', 1, 60, '{}', '{}', '[]', false, NULL, -1, 0)")
                    == "22023")
            #expect(
                sqlState("SELECT * FROM darkroom.heartbeat('w', 'h', 1, 60, '{}', '{}', '[]', false, NULL, 0, -1)")
                    == "22023")
            #expect(
                sqlState(
                    "SELECT * FROM darkroom.fail_job($1, $2::uuid, true, 0, 'no spaces allowed', 'm')",
                    [.int(job.id), .text(job.leaseToken.uuidString)]) == "22023")
            #expect(
                sqlState(
                    "SELECT * FROM darkroom.fail_job($1, $2::uuid, NULL, 0, 'code', 'm')",
                    [.int(job.id), .text(job.leaseToken.uuidString)]) == "22023")
            #expect(
                sqlState(
                    """
                    SELECT * FROM darkroom.complete_job($1, $2::uuid, false, NULL, 'layers', NULL, NULL, '{io.darkroom.pipeline}',
                                                        '{1.0}', '{}', '{renders/1/1.jpg}', '{1}', '{1}', '{1}', '{NULL}')
                    """, [.int(job.id), .text(job.leaseToken.uuidString)]) == "22023", "one layer_data entry is missing"
            )
            #expect(
                sqlState(
                    """
                    SELECT * FROM darkroom.complete_job($1, $2::uuid, false, NULL, 'layers', NULL, NULL, '{io.darkroom.pipeline}',
                                                        '{1.0}', '{\\\\x00}', '{renders/../../etc/x.jpg}', '{1}', '{1}', '{1}', '{NULL}')
                    """, [.int(job.id), .text(job.leaseToken.uuidString)]) == "22023")
        }
    }
}
