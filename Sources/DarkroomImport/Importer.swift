import ByteStreams
import ContentDigest
import Crypto
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomMetadata
import DarkroomStorage
import DarkroomWorker
import Foundation
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
    /// What became of an Apple Photos edit beside the file (its `.AAE`, Apple's render), if any.
    public var appleEdit: String? = nil
    /// Why the Apple Photos edit beside the photo was not imported, when it was refused: the
    /// photo itself was.
    public var sidecarRefusal: ImportError? = nil
}

/// Brings originals into the storage and records one asset per distinct photo. Files are
/// identified by content (SHA-256), and stored under the key the layout gives that hash:
/// importing the same photo again, under any name, returns the existing asset and copies nothing.
public struct Importer {
    let storage: any ObjectStorage
    let assets: AssetStore
    let queue: JobQueue
    let logger: Logger
    /// Whether a symlink to a file outside its own folder is imported (`--follow-symlinks`).
    let followsSymlinks: Bool
    /// Where a photo's header and metadata are parsed: a decoding child each, which holds no
    /// credential (`import --decoder-sandbox`), or nil for this process.
    let sandbox: DecoderSandbox?

    public init(
        storage: any ObjectStorage, connection: DatabaseConnection, logger: Logger, followsSymlinks: Bool = false,
        sandbox: DecoderSandbox? = nil
    ) {
        self.storage = storage
        assets = AssetStore(connection)
        queue = JobQueue(connection, logger: logger)
        self.logger = logger
        self.followsSymlinks = followsSymlinks
        self.sandbox = sandbox
    }

    /// Imports a photo and, as exported from Apple Photos, the edit beside it: its `.AAE`
    /// recorded as a `com.apple.photo` adjustment with Apple's render, or queued for a render
    /// (`Importer+Apple`).
    public func importFile(_ source: String) throws -> ImportOutcome {
        var outcome = try importOriginal(source)
        if outcome.status != .restored {
            do {
                outcome.appleEdit = try importAppleEdit(
                    besides: URL(fileURLWithPath: source).standardizedFileURL.path, assetID: outcome.assetID)
            } catch let refusal as ImportError {
                outcome.sidecarRefusal = refusal
            }
        }
        return outcome
    }

    /// Imports the file `name` in `folder`, whatever bytes its name is: a UTF-8 name as
    /// `importFile` imports it (with Apple's edit beside it); another one by the bytes of its
    /// name, shown with `ImportName.display`, with no edit looked for beside it (no sidecar's
    /// name can be matched to it).
    public func importFile(named name: ImportName, in folder: String) throws -> ImportOutcome {
        if let text = name.text { return try importFile((folder as NSString).appendingPathComponent(text)) }
        let source = (folder as NSString).appendingPathComponent(name.display)
        let file = try ImportSource(in: folder, named: name.bytes, source: source)
        return try file.withPath { absolute in
            try importOriginal(reading: absolute, realPath: file.realPath, source: source)
        }
    }

    func importOriginal(_ source: String) throws -> ImportOutcome {
        let file = try ImportSource(source, followsSymlinks: followsSymlinks)
        return try file.withPath { absolute in
            try importOriginal(reading: absolute, realPath: file.realPath, source: source)
        }
    }

    /// `absolute` reads the checked file (`ImportSource.withPath`); `realPath` is where it is.
    private func importOriginal(reading absolute: String, realPath: String, source: String) throws -> ImportOutcome {
        let (digest, fileSize) = try hashFile(absolute, source: source)
        if let existing = try assets.asset(contentSHA256: digest) {
            // Restored only when the storage says for sure it is gone; a key it refuses is left alone.
            if let key = try? StorageKey(existing.originalPath), (try? storage.exists(key)) == false {
                try copy(absolute, to: key, source: source)
                logger.notice(
                    "restored a missing original",
                    metadata: ["asset_id": "\(existing.id)", "path": "\(existing.originalPath)"])
                return ImportOutcome(
                    status: .restored, assetID: existing.id, source: source, storedPath: existing.originalPath,
                    warnings: [])
            }
            return ImportOutcome(
                status: .existing, assetID: existing.id, source: source, storedPath: existing.originalPath, warnings: []
            )
        }
        // Read the header first: a file that is not a JPEG or a HEIF is refused before anything is copied.
        let facts = try readFacts(source: source) { try FileSource(path: absolute, name: source) }
        let stored = try storeOriginal(
            absolute, realPath: realPath, digest: digest, fileExtension: facts.fileExtension, source: source)
        return try register(facts, digest: digest, byteSize: fileSize, stored: stored, source: source)
    }

    /// Registers an object already in the storage where it is, without copying it (an
    /// original put into the bucket by other means): hashed and its header read through
    /// the storage. A photo already catalogued (by its hash) is reported as existing. Apple's
    /// files beside it in the storage (its `.AAE`, Apple's render) are imported as beside a
    /// file (`Importer+Apple`).
    public func importStoredObject(_ key: StorageKey) throws -> ImportOutcome {
        let source = storage.location + "/" + key.rawValue
        let (digest, byteSize) = try hashObject(key, source: source)
        var outcome: ImportOutcome
        if let existing = try assets.asset(contentSHA256: digest) {
            outcome = ImportOutcome(
                status: .existing, assetID: existing.id, source: source, storedPath: existing.originalPath, warnings: []
            )
        } else {
            let facts = try readFacts(source: source) { try storage.openForReading(key) }
            outcome = try register(facts, digest: digest, byteSize: byteSize, stored: key.rawValue, source: source)
        }
        do {
            outcome.appleEdit = try importAppleEdit(besides: key, assetID: outcome.assetID)
        } catch let refusal as ImportError {
            outcome.sidecarRefusal = refusal
        }
        return outcome
    }

    /// The photo's header and metadata (in a decoding child unless the sandbox is off), or an
    /// `ImportError` saying why it is not a photo darkroom reads.
    func readFacts(source: String, _ open: @escaping () throws -> any ByteSource) throws -> PhotoFacts {
        do {
            guard let sandbox else { return try PhotoFacts.read(from: try open(), name: source) }
            return try sandbox.facts(of: source, open: open)
        } catch let error as PhotoFactsError {
            let code: ImportError.Code =
                switch error.code {
                case .unreadable: .unreadable
                case .notAPhoto: .notAPhoto
                case .decodingFailed: .decodingFailed
                }
            throw ImportError(code, object: source, message: error.message, cause: error.cause)
        } catch let error as StreamError {
            throw ImportError(.unreadable, object: source, message: "cannot be read: \(error.message)", cause: error)
        }
    }

    /// Records the asset stored under `stored` with what its header and metadata say.
    func register(_ facts: PhotoFacts, digest: String, byteSize: Int64, stored: String, source: String) throws
        -> ImportOutcome
    {
        for warning in facts.warnings {
            logger.warning("unreadable metadata left empty", metadata: ["file": "\(source)", "reason": "\(warning)"])
        }
        let registered = try assets.register(
            NewAsset(
                originalPath: stored, contentSHA256: digest, byteSize: byteSize,
                pixelWidth: facts.storedWidth, pixelHeight: facts.storedHeight, orientation: facts.orientation,
                latitude: facts.metadata.latitude, longitude: facts.metadata.longitude,
                altitude: facts.metadata.altitude, creationDate: facts.metadata.creationDate,
                creationDateSource: facts.metadata.creationDateSource, metadataWarnings: facts.warnings))
        return ImportOutcome(
            status: registered.created ? .imported : .existing, assetID: registered.id,
            source: source, storedPath: stored, warnings: facts.warnings)
    }

    /// Files already in the storage are registered where they are; others are copied to the
    /// key the layout gives their hash, published whole or not at all.
    func storeOriginal(_ absolute: String, realPath: String, digest: String, fileExtension: String, source: String)
        throws -> String
    {
        if let inPlace = storage.key(ofLocalFile: realPath) { return inPlace.rawValue }
        let key = StorageLayout.original(sha256: digest, fileExtension: fileExtension)
        if try !exists(key, source: source) { try copy(absolute, to: key, source: source) }
        return key.rawValue
    }

    /// Streams the file into the storage; the object appears only once it is complete and durable.
    func copy(_ absolute: String, to key: StorageKey, source: String) throws {
        do {
            let file = try FileSource(path: absolute, name: source)
            try storage.publish(key) { upload in try copyStream(from: file, to: upload) }
        } catch let error as StreamError {
            throw ImportError(
                .storageFailed, object: source,
                message: "cannot copy into the storage (\(storage.location)): \(error.message)", cause: error)
        }
    }

    func exists(_ key: StorageKey, source: String) throws -> Bool {
        do {
            return try storage.exists(key)
        } catch {
            throw ImportError(
                .storageFailed, object: source, message: "cannot look up \(key) in the storage (\(storage.location))",
                cause: error)
        }
    }

    /// SHA-256 and size of a stored object, streamed through the storage.
    func hashObject(_ key: StorageKey, source: String) throws -> (String, Int64) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileDigest.defaultChunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var count: Int64 = 0
        do {
            let object = try storage.openForReading(key)
            while true {
                let got = try object.read(into: buffer)
                if got == 0 { break }
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<got]))
                count += Int64(got)
            }
        } catch {
            throw ImportError(.unreadable, object: source, message: "cannot be read from the storage", cause: error)
        }
        return (ContentDigest.hex(hasher.finalize()), count)
    }

    /// SHA-256 and size in one streaming read (swift-crypto; as fast as `sha256sum`). A new
    /// photo is read a second time to copy it, from the page cache: the storage needs the key,
    /// which is the hash, before it can publish.
    func hashFile(_ path: String, source: String) throws -> (String, Int64) {
        do {
            let digest = try FileDigest(reading: path)
            return (digest.sha256, digest.byteCount)
        } catch {
            throw ImportError(
                .unreadable, object: source, message: "cannot be read: \(String(cString: strerror(error.errno)))",
                cause: error)
        }
    }
}

/// A photo that could not be imported: which file or object, why (a stable code), what to do,
/// and the error underneath (the storage's, the codec's, the file system's), kept typed.
public struct ImportError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case fileNotFound = "import_file_not_found"
        case isFolder = "import_is_folder"
        /// A FIFO, socket or device, or a symlink out of its folder: nothing a photo's file is.
        case notARegularFile = "import_not_a_regular_file"
        /// The file or object could not be read.
        case unreadable = "import_unreadable"
        /// The bytes are no photo darkroom reads (neither a readable JPEG nor HEIF).
        case notAPhoto = "import_not_a_photo"
        /// The storage refused to store or look up the original.
        case storageFailed = "import_storage_failed"
        /// The path names an object of the storage under a key darkroom does not allow.
        case refusedKey = "import_refused_key"
        /// A `.cube` file darkroom does not read as a filter's LUT.
        case notALookupTable = "import_not_a_lut"
        /// An Apple Photos `.AAE` sidecar darkroom cannot read.
        case badSidecar = "import_bad_sidecar"
        /// The decoding child reading its header crashed, was stopped by its filter or broke
        /// the channel's rules: bytes made to attack a decoder, or a decoder's bug.
        case decodingFailed = "import_decoding_failed"
    }

    public var code: Code
    /// The file, or the object's URL.
    public var object: String
    public var message: String
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, object: String, message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.object = object
        self.message = message
        self.cause = cause
    }

    /// The cause is said when the message does not already say it.
    public var description: String {
        guard let cause, case let text = "\(cause)", !message.contains(text) else { return "\(object): \(message)" }
        return "\(object): \(message) (\(text))"
    }
}
