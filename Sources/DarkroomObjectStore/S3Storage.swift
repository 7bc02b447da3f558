import ByteStreams
import DarkroomStorage
import Foundation
import LibCurl
import S3Answers

/// An S3-compatible bucket (AWS, SeaweedFS, Ceph RGW, MinIO) as an `ObjectStorage`: every key
/// the layout builds lives under the configured prefix. Reads stream with ranged resumes,
/// writes go up in parts and appear only when complete. Scratch files stay on local disk.
public struct S3Storage: ObjectStorage {
    public let configuration: S3Configuration
    public let scratchDirectory: String
    /// Bytes of one multipart part, which an upload holds in memory (S3's minimum is 5 MiB).
    public let partSize: Int
    /// Bytes a reader keeps received but unread before the transfer pauses.
    public let readBufferBytes: Int
    let client: S3Client

    public static let minimumPartSize = 5 << 20

    public init(
        _ configuration: S3Configuration, scratchDirectory: String, partSize: Int = minimumPartSize,
        readBufferBytes: Int = 1 << 20, retry: S3RetryPolicy = S3RetryPolicy()
    ) {
        self.configuration = configuration
        self.scratchDirectory = scratchDirectory
        self.partSize = max(partSize, Self.minimumPartSize)
        self.readBufferBytes = max(readBufferBytes, 16 << 10)
        client = S3Client(configuration, retry: retry)
    }

    public var location: String { configuration.location }

    /// A stream holds at most one part (an upload) or the read buffer plus one of libcurl's
    /// receive chunks (a reader), whichever is larger.
    public var bufferedBytesPerStream: Int { max(partSize, readBufferBytes + (512 << 10)) }

    /// Whether the bucket answers these credentials right now.
    public var isAvailable: Bool { (try? checkAccess()) != nil }

    /// Lists one key of the bucket: proves the endpoint answers, the bucket exists and the
    /// credentials are accepted, and says which of these failed.
    public func checkAccess() throws(S3Error) {
        let prefix = configuration.prefix.isEmpty ? "" : configuration.prefix + "/"
        _ = try client.send(
            "GET", objectKey: "", query: [("list-type", "2"), ("max-keys", "1"), ("prefix", prefix)],
            operation: "ListObjectsV2 (checking access)")
    }

    public func openForReading(_ key: StorageKey) throws(StreamError) -> any ByteSource {
        do {
            return try S3ObjectReader(
                client: client, key: key.rawValue, objectKey: configuration.objectKey(key), bufferLimit: readBufferBytes
            )
        } catch {
            throw error.streamError(object: key.rawValue)
        }
    }

    public func beginPublishing(_ key: StorageKey) throws(StreamError) -> any ObjectUpload {
        S3Upload(client: client, key: key.rawValue, objectKey: configuration.objectKey(key), partSize: partSize)
    }

    public func exists(_ key: StorageKey) throws(StreamError) -> Bool {
        do {
            let response = try client.send(
                "HEAD", objectKey: configuration.objectKey(key), accepting: [404], operation: "HEAD")
            return response.status != 404
        } catch {
            throw error.streamError(object: key.rawValue)
        }
    }

    /// Objects in a bucket are never local files: an import always copies.
    public func key(ofLocalFile path: String) -> StorageKey? { nil }
}
