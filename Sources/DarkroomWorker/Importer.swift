import DarkroomImaging
import DarkroomMetadata
import DarkroomDatabase
import Foundation
import JPEGTurbo
import LibPQ
import Logging

/// What happened to one file given to `darkroom import`.
public struct ImportOutcome: Sendable {
    /// `restored`: the photo was known but its original was missing from the storage
    /// root, so the (identical, by hash) file was copied back.
    public enum Status: String, Sendable { case imported, existing, restored }
    public var status: Status
    public var assetID: Int64
    public var source: String
    public var storedPath: String
    public var warnings: [String]
}

/// Brings originals under the storage root and records one asset per distinct photo.
/// Files are identified by content (SHA-256): importing the same photo again, under any
/// name, returns the existing asset and copies nothing.
public struct Importer {
    let storage: StorageRoot
    let assets: AssetStore
    let logger: Logger

    public init(storage: StorageRoot, connection: PostgresConnection, logger: Logger) {
        self.storage = storage
        assets = AssetStore(connection)
        self.logger = logger
    }

    public func importFile(_ source: String) throws -> ImportOutcome {
        let absolute = URL(fileURLWithPath: source).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) else {
            throw ImportError(source: source, message: "no such file")
        }
        guard !isDirectory.boolValue else { throw ImportError(source: source, message: "is a folder; pass the photos inside it") }
        let (digest, size) = try hashFile(absolute, source: source)
        if let existing = try assets.asset(contentSHA256: digest) {
            let stored = try? storage.resolve(existing.originalPath)
            if let stored, !FileManager.default.fileExists(atPath: stored) {
                try copyAtomically(absolute, to: stored, source: source)
                logger.notice("restored a missing original", metadata: ["asset_id": "\(existing.id)", "path": "\(existing.originalPath)"])
                return ImportOutcome(status: .restored, assetID: existing.id, source: source, storedPath: existing.originalPath, warnings: [])
            }
            return ImportOutcome(status: .existing, assetID: existing.id, source: source, storedPath: existing.originalPath, warnings: [])
        }
        // Read the header first: a file that is not a JPEG is refused before anything is copied.
        let header: JPEGHeader
        do {
            header = try JPEGDecoder(path: absolute).header
        } catch let error as JPEGError {
            throw ImportError(source: source, message: error.message + (error.code == .corrupt ? " (not a readable JPEG)" : ""))
        }
        var metadata = MetadataReader.read(app1Payload: header.exifPayload)
        if header.exifPayload == nil, header.hasXMP {
            metadata.warnings.append("no EXIF block, only XMP, which darkroom does not read: location, date and orientation left empty")
        }
        for warning in metadata.warnings {
            logger.warning("unreadable metadata left empty", metadata: ["file": "\(source)", "reason": "\(warning)"])
        }
        let stored = try storeOriginal(absolute, digest: digest, source: source)
        let info = metadata.metadata
        let registered = try assets.register(NewAsset(
            originalPath: stored, contentSHA256: digest, byteSize: size,
            pixelWidth: header.width, pixelHeight: header.height, orientation: info.orientation,
            latitude: info.latitude, longitude: info.longitude, altitude: info.altitude,
            creationDate: info.creationDate, metadataWarnings: metadata.warnings))
        return ImportOutcome(status: registered.created ? .imported : .existing, assetID: registered.id,
                             source: source, storedPath: stored, warnings: metadata.warnings)
    }

    /// Files already inside the root are registered where they are; others are copied to
    /// `originals/<first two hex digits>/<sha256>.jpg`, atomically.
    func storeOriginal(_ absolute: String, digest: String, source: String) throws -> String {
        if let relative = storage.relativePath(of: absolute), (try? StorageRoot.checkRelative(relative)) != nil {
            return relative
        }
        let relative = "originals/\(digest.prefix(2))/\(digest).jpg"
        let destination = try storage.resolve(relative)
        if FileManager.default.fileExists(atPath: destination) { return relative }
        try copyAtomically(absolute, to: destination, source: source)
        return relative
    }

    /// Copies to a temporary name beside `destination`, syncs, renames, syncs the folder.
    func copyAtomically(_ absolute: String, to destination: String, source: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            let output = try AtomicOutput(finalPath: destination)
            do {
                try FileManager.default.copyItem(atPath: absolute, toPath: output.temporaryPath)
                try FileSync.sync(path: output.temporaryPath)
                try output.commit()
            } catch {
                output.discard()
                throw error
            }
        } catch {
            throw ImportError(source: source, message: "cannot copy into the storage root: \(error)")
        }
    }

    func hashFile(_ path: String, source: String) throws -> (String, Int64) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImportError(source: source, message: "cannot be read (permissions?)")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw ImportError(source: source, message: "read failed: \(error.localizedDescription)")
            }
            if chunk.isEmpty { break }
            size += Int64(chunk.count)
            chunk.withUnsafeBytes { hasher.update($0) }
        }
        return (hasher.finalizeHex(), size)
    }
}

public struct ImportError: Error, Sendable, CustomStringConvertible {
    public var source: String
    public var message: String
    public var description: String { "\(source): \(message)" }
}

enum FileSync {
    /// fsync a file or folder by path.
    static func sync(path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
