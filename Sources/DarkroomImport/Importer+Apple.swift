import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomStorage
import Foundation

/// An original exported from Apple Photos with its edit: the `.AAE` beside it becomes a
/// `com.apple.photo` adjustment, byte for byte. With Apple's render beside it too, that render,
/// stored as it is, is the layer's render (PhotoKit's own full-size output, never re-encoded);
/// without it, the import queues a render of the edit.
extension Importer {
    /// What was done with the Apple files beside `absolute` (nil when there are none). Only an
    /// unedited asset gets the edit: importing again never stacks it twice.
    func importAppleEdit(besides absolute: String, assetID: Int64) throws -> String? {
        let folder = (absolute as NSString).deletingLastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        let files = AppleExportFiles.find(for: (absolute as NSString).lastPathComponent, among: names)
        var notes: [String] = []
        if let own = files.originalSidecar {
            notes.append("\(own): the original's own adjustments (from the camera), not recorded")
        }
        defer {
            if !notes.isEmpty {
                logger.notice(
                    "apple edit", metadata: ["asset_id": "\(assetID)", "file": "\(absolute)", "note": "\(notes)"])
            }
        }
        guard let sidecarName = files.sidecar else { return notes.isEmpty ? nil : notes.joined(separator: "; ") }
        let sidecarPath = folder + "/" + sidecarName
        let sidecar = try readSidecar(sidecarPath)
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
            let renderPath = folder + "/" + renderName
            let header = try readHeader(source: renderPath) { () throws(StreamError) in
                try FileSource(path: renderPath, name: renderPath)
            }
            let (digest, byteSize) = try hashFile(renderPath, source: renderPath)
            let key = StorageLayout.importedRender(
                assetID: assetID, sha256: digest, fileExtension: header.fileExtension)
            if try !exists(key, source: renderPath) { try copy(renderPath, to: key, source: renderPath) }
            let id = try assets.recordImportedLayer(
                assetID: assetID, formatIdentifier: sidecar.formatIdentifier, formatVersion: sidecar.formatVersion,
                data: sidecar.data, renderedPath: key.rawValue, renderedWidth: header.storedSize.width,
                renderedHeight: header.storedSize.height, renderedBytes: byteSize)
            notes.append("\(sidecarName) recorded as adjustment \(id) (\(version)), its render Apple's \(renderName)")
        } else {
            let job = try queue.enqueue(
                assetID: assetID, formatIdentifier: sidecar.formatIdentifier, formatVersion: sidecar.formatVersion,
                data: sidecar.data)
            notes.append("\(sidecarName) queued as job \(job) (\(version)): no Apple render beside it")
        }
        return notes.joined(separator: "; ")
    }

    /// The sidecar, read within its bound and checked: its data must be `com.apple.photo` darkroom
    /// reads (whatever its adjustments: the render decides what it reproduces).
    func readSidecar(_ path: String) throws -> AppleSidecar {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size, size <= AppleSidecar.maxBytes else {
            throw ImportError(
                .badSidecar, source: path,
                message: "is \(size.map(String.init) ?? "an unreadable number of") bytes, not a sidecar")
        }
        do {
            let sidecar = try AppleSidecar.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
            if sidecar.formatIdentifier == ApplePhotoFormat.identifier {
                guard SemanticVersion(sidecar.formatVersion) != nil else {
                    throw AdjustmentError(
                        .unsupportedVersion, "adjustmentFormatVersion \"\(sidecar.formatVersion)\" is not a version")
                }
                _ = try ApplePhotoFormat.decode(sidecar.data)
            }
            return sidecar
        } catch let error as AdjustmentError {
            throw ImportError(
                .badSidecar, source: path, message: "\(error.code.rawValue): \(error.message)", cause: error)
        } catch {
            throw ImportError(.unreadable, source: path, message: "cannot be read: \(error)", cause: error)
        }
    }
}
