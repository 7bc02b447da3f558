import DarkroomDatabase
import DarkroomImport
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
