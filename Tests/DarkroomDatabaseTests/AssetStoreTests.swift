import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

@Suite("AssetStore and the adjustment history")
struct AssetStoreTests {
    @Test func registersEveryFieldAndReadsItBack() throws {
        try withQueueDatabase { _, connection in
            let store = AssetStore(connection)
            let taken = Date(timeIntervalSince1970: 1_224_692_919)
            let new = NewAsset(
                originalPath: "photos/DSCN0010.jpg", contentSHA256: String(repeating: "AB", count: 32),
                byteSize: 161_713,
                pixelWidth: 640, pixelHeight: 480, orientation: 6, latitude: 43.467157, longitude: -11.885395,
                altitude: -12.5, creationDate: taken, metadataWarnings: ["MakerNote skipped", "two\nlines"])
            let (id, created) = try store.register(new)
            #expect(created)

            let asset = try #require(try store.asset(id: id))
            #expect(asset.originalPath == "photos/DSCN0010.jpg")
            #expect(asset.contentSHA256 == String(repeating: "ab", count: 32))
            #expect(
                asset.byteSize == 161_713 && asset.pixelWidth == 640 && asset.pixelHeight == 480
                    && asset.orientation == 6)
            #expect(asset.latitude == 43.467157 && asset.longitude == -11.885395 && asset.altitude == -12.5)
            #expect(asset.creationDate == taken)
            #expect(asset.metadataWarnings == ["MakerNote skipped", "two lines"])
            #expect(asset.currentAdjustmentID == nil)
            #expect(try store.asset(contentSHA256: asset.contentSHA256)?.id == id)
        }
    }

    @Test func missingMetadataIsStoredAsNull() throws {
        try withQueueDatabase { _, connection in
            let id = try AssetStore(connection).register(sampleAsset(3)).id
            let row = try connection.query(
                "SELECT latitude, longitude, altitude, creation_date, metadata_warnings FROM darkroom.assets WHERE id = $1",
                [.int(id)])[0]
            #expect(row.columns.indices.allSatisfy { row[$0].isNull })
        }
    }

    @Test func registeringTheSameContentAgainReturnsTheExistingAsset() throws {
        try withQueueDatabase { _, connection in
            let store = AssetStore(connection)
            let first = try store.register(sampleAsset(7, path: "a/IMG.jpg"))
            let again = try store.register(sampleAsset(7, path: "b/copy of IMG.jpg"))
            #expect(first.created && !again.created)
            #expect(again.id == first.id)
            #expect(try store.asset(id: first.id)?.originalPath == "a/IMG.jpg")
            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.assets").int == 1)
        }
    }

    @Test func concurrentImportsOfOneFileAgreeOnOneAsset() throws {
        try withQueueDatabase { url, _ in
            let results = try runConcurrently(
                (0..<4).map { _ in
                    { @Sendable () throws -> [Int64] in
                        let store = AssetStore(try DatabaseConnection(url))
                        return try (0..<10).map { try store.register(sampleAsset($0)).id }
                    }
                })
            #expect(results.allSatisfy { $0 == results[0] })
        }
    }

    @Test func impossibleMetadataIsRefusedByName() throws {
        try withQueueDatabase { _, connection in
            var bad = sampleAsset(1)
            bad.orientation = 9
            let error = #expect(throws: QueueError.self) { try AssetStore(connection).register(bad) }
            #expect(
                error?.code == .invalidAsset && error?.constraint == "assets_orientation_is_exif"
                    && error?.cause?.postgresError.sqlState == .checkViolation, "\(String(describing: error))")
        }
    }

    @Test func currentAdjustmentOfAnUnknownAssetThrows() throws {
        try withQueueDatabase { _, connection in
            let error = #expect(throws: QueueError.self) { try AssetStore(connection).currentAdjustment(of: 31_337) }
            #expect(error?.code == .assetNotFound)
        }
    }

    @Test func adjustmentsAreAppendOnlyButLeaveWithTheirAsset() throws {
        try withQueueDatabase { _, connection in
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            let other = try registerAsset(2, on: connection)
            _ = try queue.enqueueSample(assetID: asset)
            let job = try #require(try queue.claim(workerID: "w", limit: 1, lease: .seconds(60)).first)
            let adjustment = try queue.complete(job, with: sampleAdjustment(for: job))

            let update = #expect(throws: DatabaseError.self) {
                try connection.query(
                    "UPDATE darkroom.adjustments SET rendered_path = 'x' WHERE id = $1", [.int(adjustment)])
            }
            #expect(update?.sqlState == "23001")
            #expect(update?.message.contains("append-only") == true)
            let delete = #expect(throws: DatabaseError.self) {
                try connection.query("DELETE FROM darkroom.adjustments WHERE id = $1", [.int(adjustment)])
            }
            #expect(delete?.sqlState == "23001")
            let secondForJob = #expect(throws: DatabaseError.self) {
                try connection.query(
                    """
                    INSERT INTO darkroom.adjustments (asset_id, job_id, format_identifier, format_version, data, rendered_path, rendered_width, rendered_height, rendered_bytes)
                    VALUES ($1, $2, 'io.darkroom.pipeline', '1.0', '\\x00', 'r.jpg', 1, 1, 1)
                    """, [.int(asset), .int(job.id)])
            }
            #expect(secondForJob?.postgresError.constraintName == "adjustments_one_per_job")
            // An asset cannot point at another asset's adjustment.
            let foreign = #expect(throws: DatabaseError.self) {
                try connection.query(
                    "UPDATE darkroom.assets SET current_adjustment_id = $1 WHERE id = $2",
                    [.int(adjustment), .int(other)])
            }
            #expect(foreign?.postgresError.constraintName == "assets_current_adjustment_same_asset")

            _ = try connection.query("DELETE FROM darkroom.assets WHERE id = $1", [.int(asset)])
            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.adjustments").int == 0)
            #expect(try scalar(connection, "SELECT count(*) FROM darkroom.jobs").int == 0)
            #expect(try AssetStore(connection).asset(id: other) != nil)
        }
    }
}
