import ByteStreams
import ContentDigest
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomStorage
import Foundation

/// `darkroom filter add`: a `.cube` file becomes a filter version. The file is read first
/// (refused with its `CubeError` if darkroom cannot render it), stored content-addressed
/// (`StorageLayout.filter`, published whole or not at all; bytes already stored are not copied
/// again) and only then recorded (`FilterCatalog.add`), so a recorded version always has its LUT.
public struct FilterImporter {
    let storage: any ObjectStorage
    let catalog: FilterCatalog

    public init(storage: any ObjectStorage, connection: DatabaseConnection) {
        self.storage = storage
        catalog = FilterCatalog(connection)
    }

    public struct Added: Sendable {
        public var name: String
        public var version: String
        public var sha256: String
        public var size: Int
        public var key: StorageKey
        public var table: String
    }

    public func add(name: String, version: String, file: String) throws -> Added {
        let bytes = try Self.read(file)
        let table: ColorLookupTable
        do {
            table = try CubeFile.parse(bytes)
        } catch {
            throw ImportError(
                .notALookupTable, object: file,
                message: "is not a .cube LUT darkroom renders: \(error) [\(error.code.rawValue)]", cause: error)
        }
        let digest = Self.sha256(bytes)
        let key = StorageLayout.filter(sha256: digest)
        do {
            if try !storage.exists(key) {
                try storage.publish(key) { upload in try bytes.withUnsafeBytes { try upload.write($0) } }
            }
        } catch {
            throw ImportError(
                .storageFailed, object: file, message: "cannot be stored (\(storage.location)): \(error)", cause: error)
        }
        _ = try catalog.add(name: name, version: version, sha256: digest, size: bytes.count)
        return Added(
            name: name, version: version, sha256: digest, size: bytes.count, key: key, table: table.description)
    }

    /// The whole file, refused before reading when it is larger than any LUT darkroom reads.
    static func read(_ path: String) throws -> [UInt8] {
        let size: Int
        do {
            size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        } catch {
            throw ImportError(
                .unreadable, object: path, message: "cannot be read: \(error.localizedDescription)", cause: error)
        }
        guard size <= CubeFile.maxBytes else {
            throw ImportError(
                .notALookupTable, object: path,
                message: "is \(size) bytes; a .cube LUT darkroom reads is at most \(CubeFile.maxBytes)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImportError(.unreadable, object: path, message: "cannot be read")
        }
        return [UInt8](data)
    }

    /// Lowercase hex, the form `darkroom.filters.sha256` holds.
    public static func sha256(_ bytes: [UInt8]) -> String {
        ContentDigest.sha256(bytes)
    }
}
