import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImport
import DarkroomObjectStore
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import LibPQ
import Logging
import Testing

/// Objects already in an object storage (the private S3 server `make s3-start` runs) are
/// registered where they are, not copied.
@Suite struct StoredObjectImportTests {
    @Test func objectsAlreadyInTheBucketAreRegisteredInPlace() throws {
        try withQueueDatabase { url, connection in
            let bucket = try TestObjectStore.storage()
            let importer = Importer(storage: bucket, connection: connection, logger: Logger(label: "import"))
            let photo = try Fixtures.bytes(of: Fixtures.exifSample("canon_hdr_NO.jpg"))
            let key = try StorageKey("originals/uploaded/IMG_0001.jpg")
            try bucket.publish(key) { upload in try photo.withUnsafeBytes { try upload.write($0) } }
            let outcome = try importer.importStoredObject(key)
            #expect(outcome.status == .imported && outcome.storedPath == key.rawValue, "\(outcome)")
            #expect(outcome.source == "\(bucket.location)/\(key)")
            let row = try connection.query(
                "SELECT original_path, byte_size FROM darkroom.assets WHERE id = $1", [.int(outcome.assetID)])[0]
            #expect(row["original_path"].string == key.rawValue && row["byte_size"].int == photo.count)
            let objects = try bucket.list(
                under: StorageLayout.originalsFolder, modifiedBefore: Date().addingTimeInterval(60))
            #expect(objects.map(\.name) == [key.rawValue], "nothing copied: \(objects)")
            // Again, or the same photo from a local file: the asset that exists.
            #expect(try importer.importStoredObject(key).status == .existing)
            #expect(try importer.importFile(Fixtures.exifSample("canon_hdr_NO.jpg").path).assetID == outcome.assetID)

            let text = try StorageKey("originals/uploaded/notes.txt")
            try bucket.publish(text) { upload in try Array("not a photo".utf8).withUnsafeBytes { try upload.write($0) }
            }
            #expect(throws: ImportError.self) { _ = try importer.importStoredObject(text) }
            #expect(throws: ImportError.self) {
                _ = try importer.importStoredObject(try StorageKey("originals/uploaded/missing.jpg"))
            }
        }
    }
}

/// Apple's files beside an original already in the bucket are found by Photos' naming, in any
/// case, and imported as beside a local file; Apple's render is recorded where it is.
@Suite struct StoredAppleExportTests {
    /// `files` (fixture in `apple/` → name) published under one folder of a fresh prefix.
    static func publish(_ files: [(String, String)], under folder: String, to bucket: any ObjectStorage) throws {
        for (fixture, name) in files {
            let bytes = try Fixtures.bytes(of: Fixtures.root.appendingPathComponent("apple/" + fixture))
            try bucket.publish(try StorageKey(folder + "/" + name)) { upload in
                try bytes.withUnsafeBytes { try upload.write($0) }
            }
        }
    }

    @Test func theSidecarAndApplesRenderBesideAStoredOriginalAreItsAppleLayer() throws {
        try withQueueDatabase { url, connection in
            let bucket = try TestObjectStore.storage()
            let importer = Importer(storage: bucket, connection: connection, logger: Logger(label: "import"))
            let folder = "originals/export"
            try Self.publish(
                [
                    ("wedding.jpg", "IMG_1234.JPG"), ("wedding.AAE", "img_1234.aae"),
                    ("wedding_edited.jpg", "IMG_E1234.jpg"),
                    // Another export's folder below: never this photo's.
                    ("wedding.AAE", "nested/IMG_O1234.AAE"),
                ], under: folder, to: bucket)
            let outcome = try importer.importStoredObject(try StorageKey(folder + "/IMG_1234.JPG"))
            #expect(outcome.status == .imported)
            let note = try #require(outcome.appleEdit)
            #expect(note.contains("img_1234.aae recorded as adjustment") && note.contains("IMG_E1234.jpg"), "\(note)")
            #expect(!note.contains("IMG_O1234"), "\(note)")
            let row = try connection.query(
                """
                SELECT a.format_identifier, a.format_version, a.data, a.rendered_path, a.rendered_width
                  FROM darkroom.assets s JOIN darkroom.adjustments a ON a.id = s.current_adjustment_id
                 WHERE s.id = $1
                """, [.int(outcome.assetID)])[0]
            let sidecar = try AppleSidecar.decode(
                Fixtures.bytes(of: Fixtures.root.appendingPathComponent("apple/wedding.AAE")))
            #expect(try row[0].decode(String.self) == "com.apple.photo" && row[1].string == sidecar.formatVersion)
            #expect(try row[2].decode([UInt8].self) == sidecar.data)
            // Recorded where it is: nothing copied, the render the object Photos wrote.
            #expect(row[3].string == folder + "/IMG_E1234.jpg" && row[4].int == 1526)
            let objects = try bucket.list(under: StorageLayout.rendersFolder, modifiedBefore: .distantFuture)
            #expect(objects.isEmpty, "\(objects)")
            // Again: the asset that exists, the edit not stacked twice.
            let again = try importer.importStoredObject(try StorageKey(folder + "/IMG_1234.JPG"))
            #expect(again.status == .existing && again.appleEdit?.contains("already shows an edit") == true)
        }
    }

    @Test func withoutApplesRenderTheStoredImportQueuesOneAndABadSidecarIsRefused() throws {
        try withQueueDatabase { url, connection in
            let bucket = try TestObjectStore.storage()
            let importer = Importer(storage: bucket, connection: connection, logger: Logger(label: "import"))
            try Self.publish(
                [("wedding.jpg", "IMG_0007.jpg"), ("wedding.AAE", "IMG_0007.AAE")], under: "originals/a",
                to: bucket)
            let outcome = try importer.importStoredObject(try StorageKey("originals/a/IMG_0007.jpg"))
            #expect(outcome.appleEdit?.contains("IMG_0007.AAE queued as job") == true, "\(outcome)")
            let jobs = try connection.query(
                "SELECT format_identifier FROM darkroom.jobs WHERE asset_id = $1", [.int(outcome.assetID)])
            #expect(jobs.count == 1 && jobs[0][0].string == "com.apple.photo")

            try Self.publish(
                [("wedding_edited.jpg", "IMG_0008.JPG"), ("wedding_edited.jpg", "IMG_0008.AAE")], under: "originals/b",
                to: bucket)
            // The photo is imported; the sidecar's refusal is said beside it.
            let withRefusal = try importer.importStoredObject(try StorageKey("originals/b/IMG_0008.JPG"))
            #expect(withRefusal.status == .imported && withRefusal.appleEdit == nil)
            let refused = try #require(withRefusal.sidecarRefusal)
            #expect(refused.code == .badSidecar && refused.object.hasSuffix("originals/b/IMG_0008.AAE"), "\(refused)")

            // A sidecar past the bound is refused unread beyond it.
            try Self.publish([("wedding.jpg", "IMG_0009.JPG")], under: "originals/c", to: bucket)
            let huge = [UInt8](repeating: 0x20, count: AppleSidecar.maxBytes + 1)
            try bucket.publish(try StorageKey("originals/c/IMG_0009.AAE")) { upload in
                try huge.withUnsafeBytes { try upload.write($0) }
            }
            let tooBig = try #require(
                try importer.importStoredObject(try StorageKey("originals/c/IMG_0009.JPG")).sidecarRefusal)
            #expect(tooBig.code == .badSidecar && tooBig.message.contains("not a sidecar"), "\(tooBig)")
        }
    }
}
