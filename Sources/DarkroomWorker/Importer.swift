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
        // Files already inside the root are registered where they are, so they are only hashed.
        // Others are hashed while they are copied into a staging file, so they are read once;
        // the copy becomes the stored original, or is discarded if the photo is already stored.
        let inPlace = storage.relativePath(of: absolute).flatMap { (try? StorageRoot.checkRelative($0)) != nil ? $0 : nil }
        let staged = inPlace == nil ? try StagedOriginal(in: storage, source: source) : nil
        let digest = try Self.digest(absolute, source: source, copyingTo: staged)
        if let existing = try assets.asset(contentSHA256: digest.sha256) {
            let stored = try? storage.resolve(existing.originalPath)
            if let stored, !FileManager.default.fileExists(atPath: stored) {
                let copy = try staged ?? restage(absolute, source: source, expecting: digest)
                try copy.commit(to: stored, source: source)
                logger.notice("restored a missing original", metadata: ["asset_id": "\(existing.id)", "path": "\(existing.originalPath)"])
                return ImportOutcome(status: .restored, assetID: existing.id, source: source, storedPath: existing.originalPath, warnings: [])
            }
            return ImportOutcome(status: .existing, assetID: existing.id, source: source, storedPath: existing.originalPath, warnings: [])
        }
        // Read the header before storing anything: a file that is not a JPEG is refused, and
        // its staged copy discarded.
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
        // In place, or content-addressed: `originals/<first two hex digits>/<sha256>.jpg`.
        let stored = inPlace ?? "originals/\(digest.sha256.prefix(2))/\(digest.sha256).jpg"
        if let staged {
            let destination = try storage.resolve(stored)
            if !FileManager.default.fileExists(atPath: destination) {
                try staged.commit(to: destination, source: source)
            }
        }
        let info = metadata.metadata
        let registered = try assets.register(NewAsset(
            originalPath: stored, contentSHA256: digest.sha256, byteSize: digest.byteCount,
            pixelWidth: header.width, pixelHeight: header.height, orientation: info.orientation,
            latitude: info.latitude, longitude: info.longitude, altitude: info.altitude,
            creationDate: info.creationDate, metadataWarnings: metadata.warnings))
        return ImportOutcome(status: registered.created ? .imported : .existing, assetID: registered.id,
                             source: source, storedPath: stored, warnings: metadata.warnings)
    }

    /// A file inside the root was only hashed; restoring a missing original from it copies it
    /// now, and makes sure it is still the photo that was hashed.
    func restage(_ absolute: String, source: String, expecting digest: FileDigest) throws(ImportError) -> StagedOriginal {
        let copy = try StagedOriginal(in: storage, source: source)
        guard try Self.digest(absolute, source: source, copyingTo: copy) == digest else {
            throw ImportError(source: source, message: "changed while it was being imported; import it again")
        }
        return copy
    }

    static func digest(_ absolute: String, source: String, copyingTo staged: StagedOriginal?) throws(ImportError) -> FileDigest {
        do {
            return try FileDigest(reading: absolute, copyingTo: staged.map { ($0.descriptor, $0.path) })
        } catch {
            switch error {
            case let .unreadable(_, code):
                throw ImportError(source: source, message: "cannot be read: \(String(cString: strerror(code)))")
            case let .unwritable(path, code):
                throw ImportError(source: source, message: "cannot copy into the storage root: \(path): \(String(cString: strerror(code)))")
            }
        }
    }
}

/// The copy of a photo being imported, written under `originals/` while it is hashed (its
/// stored name is the hash, known only at the end). It is moved into place by `commit`, or
/// removed when dropped uncommitted, so a refused or already-stored photo leaves nothing.
final class StagedOriginal {
    let path: String
    private(set) var descriptor: Int32
    private var committed = false

    init(in storage: StorageRoot, source: String) throws(ImportError) {
        // Same folder tree as the destinations, so committing is a rename.
        path = "\(storage.path)/originals/.import-\(UUID().uuidString).partial"
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ImportError(source: source, message: "cannot copy into the storage root: \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Syncs the copy, renames it to `destination` and syncs that folder, so a crash leaves
    /// either no original or a complete one.
    func commit(to destination: String, source: String) throws(ImportError) {
        do {
            try FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            guard fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            close(descriptor)
            descriptor = -1
            guard rename(path, destination) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            committed = true
            try FileSync.sync(path: (destination as NSString).deletingLastPathComponent)
        } catch {
            throw ImportError(source: source, message: "cannot store the original at \(destination): \(error)")
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(path) }
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
