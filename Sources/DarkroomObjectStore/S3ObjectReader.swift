import ByteStreams
import LibCurl
import S3Answers

/// An object read as its GET arrives, through a bounded buffer. When the connection drops
/// part way it asks again for the rest (`Range: bytes=N-`), only from the same version of the
/// object (`If-Match` its ETag), so a replaced object is never spliced onto the old one.
final class S3ObjectReader: ByteSource {
    let objectName: String
    private let client: S3Client
    private let objectKey: String
    private let bufferLimit: Int
    private var download: HTTPDownload
    private var etag: String?
    private var length: Int?
    private var offset = 0
    /// Breaks in a row with no byte read between them; bounded by the retry policy.
    private var breaksWithoutProgress = 0
    /// How many times the transfer was resumed, for tests and logs.
    private(set) var resumes = 0
    /// The most bytes ever waiting unread in the buffer: what the budget counts.
    private(set) var peakBufferedBytes = 0

    /// libcurl's CURLE_PARTIAL_FILE, for a body shorter than its Content-Length.
    static let partialFile: Int32 = 18

    init(client: S3Client, key: String, objectKey: String, bufferLimit: Int) throws(S3Error) {
        objectName = key
        self.client = client
        self.objectKey = objectKey
        self.bufferLimit = bufferLimit
        let (download, headers) = try client.withRetries(objectKey: objectKey, operation: "GET") { () throws(S3Error) in
            try Self.open(client: client, objectKey: objectKey, from: 0, etag: nil, bufferLimit: bufferLimit)
        }
        self.download = download
        etag = headers["etag"]
        length = headers["content-length"].flatMap { Int($0) }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        while true {
            do throws(CurlError) {
                let got = try download.read(into: buffer)
                if got == 0, let length, offset < length {
                    // The server closed early without an error libcurl noticed: resume as after a reset.
                    throw CurlError(
                        code: .interrupted, curlCode: Self.partialFile,
                        message: "the body ended at byte \(offset) of \(length)",
                        object: objectKey)
                }
                offset += got
                if got > 0 { breaksWithoutProgress = 0 }
                peakBufferedBytes = max(peakBufferedBytes, got + download.bufferedBytes)
                return got
            } catch {
                guard error.isTransient else {
                    throw S3Error.transfer(error, bucket: client.configuration.bucket, key: objectKey, operation: "GET")
                        .streamError(object: objectName, at: offset)
                }
                if let length, offset >= length { return 0 }
                try resume(after: error)
            }
        }
    }

    private func resume(after error: CurlError) throws(StreamError) {
        breaksWithoutProgress += 1
        guard breaksWithoutProgress <= client.retry.attempts else {
            throw S3Error.transfer(
                error, bucket: client.configuration.bucket, key: objectKey,
                operation: "GET (resumed \(resumes) times)"
            ).streamError(object: objectName, at: offset)
        }
        client.retry.sleep(before: breaksWithoutProgress)
        do {
            let (client, objectKey, offset, etag, bufferLimit) = (client, objectKey, offset, etag, bufferLimit)
            download = try client.withRetries(objectKey: objectKey, operation: "GET from byte \(offset)") {
                () throws(S3Error) in
                try Self.open(client: client, objectKey: objectKey, from: offset, etag: etag, bufferLimit: bufferLimit)
                    .0
            }
            resumes += 1
        } catch  where error.code == .preconditionFailed {
            var replaced = error
            replaced.message = "the object was replaced while it was being read; read it again from the start"
            throw replaced.streamError(object: objectName, at: offset)
        } catch {
            throw error.streamError(object: objectName, at: offset)
        }
    }

    /// Starts a GET from `offset` and waits for its headers; anything but the expected
    /// status is thrown with the server's error document.
    private static func open(
        client: S3Client, objectKey: String, from offset: Int, etag: String?,
        bufferLimit: Int
    ) throws(S3Error) -> (HTTPDownload, [String: String]) {
        var headers: [String] = []
        if offset > 0 {
            headers.append("Range: bytes=\(offset)-")
            if let etag { headers.append("If-Match: \(etag)") }
        }
        let operation = offset > 0 ? "GET from byte \(offset)" : "GET"
        let download = HTTPDownload(
            client.request("GET", objectKey: objectKey, headers: headers), bufferLimit: bufferLimit)
        let answer: (status: Int, headers: [String: String])
        do {
            answer = try download.awaitResponse()
        } catch {
            throw S3Error.transfer(error, bucket: client.configuration.bucket, key: objectKey, operation: operation)
        }
        let expected = offset > 0 ? 206 : 200
        guard answer.status == expected else {
            var body: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16 << 10)
            while body.count < 64 << 10, let got = try? chunk.withUnsafeMutableBytes({ try download.read(into: $0) }),
                got > 0
            {
                body += chunk[..<got]
            }
            throw S3Error.answer(
                answer.status, body: body, bucket: client.configuration.bucket, key: objectKey, operation: operation)
        }
        return (download, answer.headers)
    }
}
