import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomStorage
import DarkroomWorker
import Foundation
import Logging

/// An original exported from Apple Photos with its edit: the `.AAE` beside it becomes a
/// `com.apple.photo` adjustment, byte for byte. With Apple's render beside it too, that render,
/// stored as it is, is the layer's render (PhotoKit's own full-size output, never re-encoded);
/// without it, the import queues a render of the edit.
extension Importer {
    /// Where an original's neighbours are: a local folder, or a folder of the storage (the
    /// objects beside an original already in a bucket, registered where they are).
    enum Neighbourhood {
        case folder(String)
        case stored(folder: String)
    }

    /// What was done with the Apple files beside `absolute` (nil when there are none). Only an
    /// unedited asset gets the edit: importing again never stacks it twice.
    func importAppleEdit(besides absolute: String, assetID: Int64) throws -> String? {
        let folder = (absolute as NSString).deletingLastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        return try importAppleEdit(
            of: (absolute as NSString).lastPathComponent, among: names, in: .folder(folder), assetID: assetID)
    }

    /// The same for an object already in the storage: the objects beside its key, by the same
    /// naming. Apple's render there is recorded where it is, as the original is.
    func importAppleEdit(besides key: StorageKey, assetID: Int64) throws -> String? {
        guard let slash = key.rawValue.lastIndex(of: "/") else { return nil }
        let folder = String(key.rawValue[..<slash])
        let listed: [StoredObject]
        do {
            listed = try storage.list(under: folder, modifiedBefore: .distantFuture)
        } catch {
            throw ImportError(
                .unreadable, object: storage.location + "/" + folder + "/", message: "cannot list it: \(error.message)",
                cause: error)
        }
        // Only the folder's own objects: its subfolders hold other exports.
        let names = listed.compactMap { object -> String? in
            let name = object.name.dropFirst(folder.count + 1)
            return object.isUnfinishedUpload || object.key == nil || name.contains("/") ? nil : String(name)
        }
        return try importAppleEdit(
            of: String(key.rawValue[key.rawValue.index(after: slash)...]), among: names,
            in: .stored(folder: folder), assetID: assetID)
    }

    private func importAppleEdit(
        of original: String, among names: [String], in place: Neighbourhood, assetID: Int64
    ) throws -> String? {
        let files = AppleExportFiles.find(for: original, among: names)
        var notes: [String] = []
        if let own = files.originalSidecar {
            notes.append("\(own): the original's own adjustments (from the camera), not recorded")
        }
        defer {
            if !notes.isEmpty {
                logger.notice(
                    "apple edit",
                    metadata: ["asset_id": "\(assetID)", "file": "\(source(original, in: place))", "note": "\(notes)"])
            }
        }
        guard let sidecarName = files.sidecar else { return notes.isEmpty ? nil : notes.joined(separator: "; ") }
        let sidecar = try readSidecar(sidecarName, in: place)
        guard sidecar.formatIdentifier == ApplePhotoFormat.identifier else {
            notes.append("\(sidecarName) holds \(sidecar.formatIdentifier), which darkroom does not read; left out")
            return notes.joined(separator: "; ")
        }
        guard try assets.currentAdjustment(of: assetID) == nil else {
            notes.append("\(sidecarName) left out: asset \(assetID) already shows an edit")
            return notes.joined(separator: "; ")
        }
        let version = "\(ApplePhotoFormat.identifier) \(sidecar.formatVersion)"
        if let renderName = files.render {
            let render = try storeRender(renderName, in: place, assetID: assetID)
            let id = try assets.recordImportedLayer(
                assetID: assetID, formatIdentifier: sidecar.formatIdentifier, formatVersion: sidecar.formatVersion,
                data: sidecar.data, renderedPath: render.key.rawValue, renderedWidth: render.facts.storedWidth,
                renderedHeight: render.facts.storedHeight, renderedBytes: render.byteSize)
            notes.append("\(sidecarName) recorded as adjustment \(id) (\(version)), its render Apple's \(renderName)")
        } else {
            let job = try queue.enqueue(
                assetID: assetID, formatIdentifier: sidecar.formatIdentifier, formatVersion: sidecar.formatVersion,
                data: sidecar.data)
            notes.append("\(sidecarName) queued as job \(job) (\(version)): no Apple render beside it")
        }
        return notes.joined(separator: "; ")
    }

    /// The path or URL of `name`, for messages.
    func source(_ name: String, in place: Neighbourhood) -> String {
        switch place {
        case .folder(let folder): folder + "/" + name
        case .stored(let folder): storage.location + "/" + folder + "/" + name
        }
    }

    /// Apple's render as the layer's render, byte for byte: a local file copied under the layout,
    /// an object of the storage left where it is.
    private func storeRender(_ name: String, in place: Neighbourhood, assetID: Int64) throws
        -> (key: StorageKey, facts: PhotoFacts, byteSize: Int64)
    {
        let path = source(name, in: place)
        switch place {
        case .folder:
            // Checked as the photo is, and read through the descriptor checked.
            return try ImportSource(path, followsSymlinks: followsSymlinks).withPath { checked in
                let facts = try readFacts(source: path) { try FileSource(path: checked, name: path) }
                let (digest, byteSize) = try hashFile(checked, source: path)
                let key = StorageLayout.importedRender(
                    assetID: assetID, sha256: digest, fileExtension: facts.fileExtension)
                if try !exists(key, source: path) { try copy(checked, to: key, source: path) }
                return (key, facts, byteSize)
            }
        case .stored(let folder):
            let key = try storedKey(folder + "/" + name, source: path)
            let facts = try readFacts(source: path) { try storage.openForReading(key) }
            let (_, byteSize) = try hashObject(key, source: path)
            return (key, facts, byteSize)
        }
    }

    private func storedKey(_ name: String, source: String) throws -> StorageKey {
        do {
            return try StorageKey(name)
        } catch {
            throw ImportError(
                .refusedKey, object: source, message: "names no key darkroom allows: \(error.message)", cause: error)
        }
    }

    /// The sidecar, read within its bound and checked (`AppleSidecar.decodeForImport`), in a
    /// decoding child unless the sandbox is off.
    func readSidecar(_ name: String, in place: Neighbourhood) throws -> AppleSidecar {
        let path = source(name, in: place)
        do {
            guard let sandbox else { return try AppleSidecar.decodeForImport(try sidecarBytes(name, in: place)) }
            return try sandbox.sidecar(of: path) { try sidecarStream(name, in: place) }
        } catch let error as AdjustmentError where error.code == .dataTooLarge {
            throw ImportError(.badSidecar, object: path, message: error.message)
        } catch let error as AdjustmentError {
            throw ImportError(
                .badSidecar, object: path, message: "\(error.code.rawValue): \(error.message)", cause: error)
        } catch let error as PhotoFactsError {
            throw ImportError(.decodingFailed, object: path, message: error.message)
        } catch let error as StreamError {
            throw ImportError(.unreadable, object: path, message: "cannot be read: \(error.message)", cause: error)
        } catch let error as ImportError {
            throw error
        } catch {
            throw ImportError(.unreadable, object: path, message: "cannot be read: \(error)", cause: error)
        }
    }

    /// The sidecar's bytes. Checked as the photo is: a FIFO named `.AAE` would hold the import.
    /// The stream keeps a descriptor of its own once opened.
    private func sidecarStream(_ name: String, in place: Neighbourhood) throws -> any ByteSource {
        let path = source(name, in: place)
        switch place {
        case .folder:
            return try ImportSource(path, followsSymlinks: followsSymlinks).withPath { checked throws(StreamError) in
                try FileSource(path: checked, name: path)
            }
        case .stored(let folder): return try storage.openForReading(try storedKey(folder + "/" + name, source: path))
        }
    }

    /// At most one byte past `AppleSidecar.maxBytes` of the sidecar (`decodeForImport` refuses
    /// a longer one), unread past that.
    private func sidecarBytes(_ name: String, in place: Neighbourhood) throws -> [UInt8] {
        try sidecarStream(name, in: place).readAll(upTo: AppleSidecar.maxBytes + 1)
    }
}
