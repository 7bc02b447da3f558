import ByteStreams
import DarkroomStorage
import Foundation
import LibCurl
import S3Answers

/// Listing and removal for the orphan cleanup and housekeeping: objects (ListObjectsV2) and
/// multipart uploads that never completed (ListMultipartUploads), the latter named
/// `KEY#upload=ID` so that `remove` knows to abort them.
extension S3Storage {
    static let uploadMarker = "#upload="

    public func list(under folder: String, modifiedBefore cutoff: Date) throws(StreamError) -> [StoredObject] {
        guard (try? StorageKey(folder)) != nil else {
            throw StreamError(code: .outsideStorage, object: folder + "/", message: "not a folder of the layout")
        }
        let prefix = configuration.objectKey(folder) + "/"
        do {
            return try (listObjects(prefix: prefix, before: cutoff) + listUploads(prefix: prefix, before: cutoff))
                .sorted { $0.name < $1.name }
        } catch {
            throw error.streamError(object: folder + "/")
        }
    }

    public func remove(_ name: String) throws(StreamError) {
        let (keyText, uploadID) = Self.split(name)
        let key: StorageKey
        do {
            key = try StorageKey(keyText)
        } catch {
            throw StreamError(code: .outsideStorage, object: name, message: error.message)
        }
        do {
            if let uploadID {
                _ = try client.send(
                    "DELETE", objectKey: configuration.objectKey(key), query: [("uploadId", uploadID)],
                    accepting: [404], operation: "AbortMultipartUpload")
            } else {
                _ = try client.send(
                    "DELETE", objectKey: configuration.objectKey(key), accepting: [404], operation: "DELETE")
            }
        } catch {
            throw error.streamError(object: name)
        }
    }

    /// A listed name's key and, for an unfinished upload, its upload id.
    static func split(_ name: String) -> (key: String, uploadID: String?) {
        guard let marker = name.range(of: uploadMarker, options: .backwards) else { return (name, nil) }
        return (String(name[..<marker.lowerBound]), String(name[marker.upperBound...]))
    }

    private func listObjects(prefix: String, before cutoff: Date) throws(S3Error) -> [StoredObject] {
        var found: [StoredObject] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix)]
            if let token { query.append(("continuation-token", token)) }
            let page = S3XML(
                try client.send("GET", objectKey: "", query: query, operation: "ListObjectsV2 \(prefix)").body)
            for entry in page.elements(named: "Contents") {
                guard let objectKey = entry.value(of: "Key"), let relative = configuration.relativeKey(objectKey),
                    let modified = entry.value(of: "LastModified").flatMap(Self.parseDate), modified < cutoff
                else { continue }
                found.append(StoredObject(name: relative, key: try? StorageKey(relative), isUnfinishedUpload: false))
            }
            token = page.value(of: "IsTruncated") == "true" ? page.value(of: "NextContinuationToken") : nil
        } while token != nil
        return found
    }

    private func listUploads(prefix: String, before cutoff: Date) throws(S3Error) -> [StoredObject] {
        var found: [StoredObject] = []
        var markers: (key: String, upload: String)?
        repeat {
            var query = [("uploads", ""), ("prefix", prefix)]
            if let markers { query += [("key-marker", markers.key), ("upload-id-marker", markers.upload)] }
            let page = S3XML(
                try client.send("GET", objectKey: "", query: query, operation: "ListMultipartUploads \(prefix)").body)
            for entry in page.elements(named: "Upload") {
                guard let objectKey = entry.value(of: "Key"), let uploadID = entry.value(of: "UploadId"),
                    let relative = configuration.relativeKey(objectKey),
                    let initiated = entry.value(of: "Initiated").flatMap(Self.parseDate), initiated < cutoff
                else { continue }
                found.append(
                    StoredObject(
                        name: relative + Self.uploadMarker + uploadID, key: try? StorageKey(relative),
                        isUnfinishedUpload: true))
            }
            if page.value(of: "IsTruncated") == "true", let key = page.value(of: "NextKeyMarker"),
                let upload = page.value(of: "NextUploadIdMarker")
            {
                markers = (key, upload)
            } else {
                markers = nil
            }
        } while markers != nil
        return found
    }

    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
