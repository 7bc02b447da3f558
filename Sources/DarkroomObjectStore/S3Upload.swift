import ByteStreams
import LibCurl
import S3Answers

/// An object written in parts: bytes gather in one part-sized buffer; an object smaller than
/// a part goes up in one PUT at `commit`, a larger one as a multipart upload (started when the
/// first part is full, completed at `commit`, aborted on every failure and on `abort`). Until
/// it completes, nothing is visible under the key.
final class S3Upload: ObjectUpload {
    let objectName: String
    private let client: S3Client
    private let objectKey: String
    private let part: UnsafeMutableRawBufferPointer
    private var filled = 0
    private var written = 0
    private(set) var uploadID: String?
    private var etags: [String] = []
    private var state: State = .writing

    private enum State { case writing, committed, aborted }

    init(client: S3Client, key: String, objectKey: String, partSize: Int) {
        objectName = key
        self.client = client
        self.objectKey = objectKey
        part = .allocate(byteCount: partSize, alignment: 16)
    }

    deinit {
        abort()
        part.deallocate()
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(StreamError) {
        guard state == .writing else {
            throw StreamError(
                code: .io, object: objectName, message: "written after commit or abort (a bug in darkroom)")
        }
        var done = 0
        while done < bytes.count {
            let count = min(bytes.count - done, part.count - filled)
            part.baseAddress!.advanced(by: filled).copyMemory(
                from: bytes.baseAddress!.advanced(by: done), byteCount: count)
            filled += count
            done += count
            if filled == part.count { try failing(sendPart) }
        }
        written += bytes.count
    }

    @discardableResult
    func commit() throws(StreamError) -> Int {
        guard state == .writing else {
            throw StreamError(
                code: .io, object: objectName, message: "committed twice or after abort (a bug in darkroom)")
        }
        try failing(finish)
        state = .committed
        return written
    }

    /// One PUT for an object smaller than a part; the last part and completion otherwise.
    private func finish() throws(S3Error) {
        if let uploadID {
            if filled > 0 { try sendPart() }
            try complete(uploadID)
        } else {
            _ = try client.send(
                "PUT", objectKey: objectKey, headers: ["Content-Type: application/octet-stream"],
                body: UnsafeRawBufferPointer(rebasing: part[..<filled]), operation: "PUT")
        }
    }

    func abort() {
        guard state == .writing else { return }
        state = .aborted
        guard let uploadID else { return }
        // Best effort: what this cannot abort, housekeeping lists and aborts later.
        _ = try? client.send(
            "DELETE", objectKey: objectKey, query: [("uploadId", uploadID)], accepting: [404],
            operation: "AbortMultipartUpload")
    }

    /// Aborts the upload when `body` fails, and reports the failure as a stream error.
    private func failing(_ body: () throws(S3Error) -> Void) throws(StreamError) {
        do {
            try body()
        } catch {
            abort()
            throw error.streamError(object: objectName, at: written)
        }
    }

    private func sendPart() throws(S3Error) {
        let uploadID: String
        if let started = self.uploadID { uploadID = started } else { uploadID = try initiate() }
        let number = etags.count + 1
        let response = try client.send(
            "PUT", objectKey: objectKey, query: [("partNumber", "\(number)"), ("uploadId", uploadID)],
            body: UnsafeRawBufferPointer(rebasing: part[..<filled]), operation: "upload part \(number)")
        guard let etag = response.headers["etag"] else {
            throw S3Error(
                code: .unexpected, bucket: client.configuration.bucket, key: objectKey,
                operation: "upload part \(number)",
                httpStatus: response.status, s3Code: nil, message: "the answer has no ETag")
        }
        etags.append(etag)
        filled = 0
    }

    private func initiate() throws(S3Error) -> String {
        let response = try client.send(
            "POST", objectKey: objectKey, query: [("uploads", "")],
            headers: ["Content-Type: application/octet-stream"], operation: "CreateMultipartUpload")
        guard let id = S3XML(response.body).value(of: "UploadId"), !id.isEmpty else {
            throw S3Error(
                code: .unexpected, bucket: client.configuration.bucket, key: objectKey,
                operation: "CreateMultipartUpload",
                httpStatus: response.status, s3Code: nil, message: "the answer has no UploadId")
        }
        uploadID = id
        return id
    }

    private func complete(_ uploadID: String) throws(S3Error) {
        var document = "<CompleteMultipartUpload>"
        for (index, etag) in etags.enumerated() {
            document += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(S3XML.escape(etag))</ETag></Part>"
        }
        document += "</CompleteMultipartUpload>"
        let body = UnsafeMutableRawBufferPointer.allocate(byteCount: document.utf8.count, alignment: 1)
        defer { body.deallocate() }
        body.copyBytes(from: document.utf8)
        let response = try client.send(
            "POST", objectKey: objectKey, query: [("uploadId", uploadID)],
            headers: ["Content-Type: application/xml"], body: UnsafeRawBufferPointer(body),
            operation: "CompleteMultipartUpload")
        // S3 may answer 200 and still fail: the error is then in the body.
        let answer = S3XML(response.body)
        if !answer.elements(named: "Error").isEmpty {
            throw S3Error.answer(
                500, body: response.body, bucket: client.configuration.bucket, key: objectKey,
                operation: "CompleteMultipartUpload")
        }
    }
}
