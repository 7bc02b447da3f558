import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// What a render met without spoiling its pixels is kept on the adjustment whose render met it
/// and on the job that wrote it, where plain SQL finds it.
@Suite("Render warnings on jobs and adjustments")
struct RenderWarningRecordTests {
    let missingEOI = RecordedWarning(
        code: "jpeg.missing_eoi", message: "the file ends at byte 2000 without its EOI marker",
        object: "originals/ab/abcd.jpg", byteOffset: 2000)
    let exif = RecordedWarning(code: "exif.not_copied", message: "EXIF not copied to the render: bad IFD")

    func claim(_ queue: JobQueue, asset: Int64) throws -> ClaimedJob {
        _ = try queue.enqueueSample(assetID: asset)
        return try #require(try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60)).first)
    }

    @Test func eachLayerKeepsItsOwnWarningsAndTheJobKeepsThemAll() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            let job = try claim(queue, asset: asset)
            var bottom = sampleAdjustment(for: job)
            bottom.warnings = [missingEOI]
            var top = sampleAdjustment(for: job)
            top.renderedPath = "renders/top.jpg"
            top.warnings = [exif]
            try queue.complete(job, with: JobResult(.layers([bottom, top]), expectedCurrent: nil))

            let layers = try AssetStore(connection).adjustments(of: asset)
            #expect(layers.map(\.warnings) == [[missingEOI], [exif]])
            #expect(try queue.job(id: job.id)?.warnings == [missingEOI, exif])

            // The query docs/operations.md gives operators: originals whose renders met a missing EOI.
            let found = try connection.query(
                """
                SELECT DISTINCT s.id, s.original_path, w->>'byte_offset' AS end_of_data
                  FROM darkroom.adjustments AS a JOIN darkroom.assets AS s ON s.id = a.asset_id,
                       jsonb_array_elements(a.warnings) AS w
                 WHERE a.warnings @> '[{"code": "jpeg.missing_eoi"}]' AND w->>'code' = 'jpeg.missing_eoi'
                """)
            #expect(
                found.count == 1 && found.first?["id"].int64 == asset && found.first?["end_of_data"].string == "2000")
            #expect(
                try scalar(
                    connection,
                    """
                    SELECT count(*) FROM darkroom.jobs WHERE warnings @> '[{"code": "exif.not_copied"}]'
                    """
                ).int == 1)
        }
    }

    @Test func aJobWithoutARenderHasNoWarnings() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            let edit = try claim(queue, asset: asset)
            var layer = sampleAdjustment(for: edit)
            layer.warnings = [missingEOI]
            try queue.complete(edit, with: layer)
            _ = try queue.enqueueRevert(assetID: asset)
            let job = try #require(try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60)).first)
            try queue.complete(
                job, with: JobResult(.original(outcome: "reverted to the original"), expectedCurrent: nil))
            #expect(try queue.job(id: job.id)?.warnings == [])
        }
    }

    /// A worker built before migration 12 calls complete_job without layer_warnings.
    @Test func anOlderWorkersCompletionStillWorks() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            let job = try claim(queue, asset: asset)
            let status = try connection.query(
                """
                SELECT status FROM darkroom.complete_job($1::bigint, $2::uuid, false, NULL, 'layers', NULL, NULL,
                    ARRAY['io.darkroom.pipeline'], ARRAY['1.0'], ARRAY['\\x7b7d'::bytea], ARRAY['renders/old.jpg'],
                    ARRAY[640], ARRAY[480], ARRAY[1000::bigint], ARRAY[NULL::bigint])
                """, [.int(job.id), .text(job.leaseToken.uuidString)])
            #expect(status.first?["status"].string == "done")
            #expect(try AssetStore(connection).adjustments(of: asset).map(\.warnings) == [[]])
            #expect(try queue.job(id: job.id)?.warnings == [])
        }
    }

    @Test func warningsOfTheWrongShapeAreRefusedAndNothingIsWritten() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            let job = try claim(queue, asset: asset)
            for wrong in [#"[[], []]"#, #"{"code": "x"}"#, #"[{"code": "x"}]"#] {
                let error = #expect(throws: DatabaseError.self) {
                    try connection.query(
                        """
                        SELECT status FROM darkroom.complete_job($1::bigint, $2::uuid, false, NULL, 'layers', NULL, NULL,
                            ARRAY['io.darkroom.pipeline'], ARRAY['1.0'], ARRAY['\\x7b7d'::bytea], ARRAY['renders/x.jpg'],
                            ARRAY[640], ARRAY[480], ARRAY[1000::bigint], ARRAY[NULL::bigint], $3::jsonb)
                        """, [.int(job.id), .text(job.leaseToken.uuidString), .text(wrong)])
                }
                #expect(error?.sqlState == "22023", "\(wrong): \(String(describing: error))")
            }
            #expect(try AssetStore(connection).adjustments(of: asset).isEmpty)
            #expect(try queue.job(id: job.id)?.state == .running)
            // The columns themselves hold arrays only.
            let notAnArray = #expect(throws: DatabaseError.self) {
                try connection.query("UPDATE darkroom.jobs SET warnings = '{}' WHERE id = $1", [.int(job.id)])
            }
            #expect(notAnArray?.sqlState == "23514")
        }
    }
}
