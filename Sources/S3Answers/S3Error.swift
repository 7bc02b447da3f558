import ByteStreams
import LibCurl

/// A request the object store refused or could not answer: which bucket and key, what the
/// server said (its HTTP status and S3 error code) or what broke below HTTP, and whether
/// trying again can help. Code decides on `code`, never on `message`; a failure below HTTP
/// keeps libcurl's error as its `cause`.
public struct S3Error: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// 404: no such key (or upload, or bucket).
        case notFound = "s3_not_found"
        /// 403: wrong credentials, a bad signature, a clock too far off, or no permission.
        /// Trying again with the same settings cannot help.
        case rejected = "s3_rejected"
        /// 412: the object is not the one the request was conditioned on (replaced, or a
        /// create-only write found it there).
        case preconditionFailed = "s3_precondition_failed"
        /// 429, 503 SlowDown and the like: the server asks to slow down.
        case throttled = "s3_throttled"
        /// 5xx: the server failed; the next try may not.
        case serverError = "s3_server_error"
        /// No connection, or it broke or stalled part way.
        case unreachable = "s3_unreachable"
        case interrupted = "s3_interrupted"
        /// Any other answer darkroom did not expect (a 400, an unreadable body).
        case unexpected = "s3_unexpected"
    }

    public var code: Code
    public var bucket: String
    /// The bucket's key (prefix included); "" for the bucket itself.
    public var key: String
    /// What darkroom was doing ("GET", "upload part 3", …).
    public var operation: String
    public var httpStatus: Int?
    /// The `<Code>` of S3's error document ("SignatureDoesNotMatch", "AccessDenied", "SlowDown").
    public var s3Code: String?
    /// What went wrong and what to do about it.
    public var message: String
    /// The transfer's own error, when the request failed below HTTP.
    public var cause: CurlError?

    package init(
        code: Code, bucket: String, key: String, operation: String, httpStatus: Int?, s3Code: String?, message: String,
        cause: CurlError? = nil
    ) {
        (self.code, self.bucket, self.key, self.operation) = (code, bucket, key, operation)
        (self.httpStatus, self.s3Code, self.message, self.cause) = (httpStatus, s3Code, message, cause)
    }

    public var isTransient: Bool {
        switch code {
        case .throttled, .serverError, .unreachable, .interrupted: true
        case .notFound, .rejected, .preconditionFailed, .unexpected: false
        }
    }

    public var description: String {
        var text = "s3://\(bucket)/\(key): \(operation) failed: "
        if let httpStatus { text += "HTTP \(httpStatus) " }
        if let s3Code { text += "\(s3Code) " }
        text += message
        if let cause { text += " (\(cause))" }
        return text
    }

    /// From an HTTP answer that was not a success, with S3's error document if it sent one.
    public static func answer(_ status: Int, body: [UInt8], bucket: String, key: String, operation: String) -> S3Error {
        let document = S3XML(body)
        let code = document.value(of: "Code")
        let serverMessage = document.value(of: "Message")
        let kind: Code =
            switch status {
            case 404: .notFound
            case 403: .rejected
            case 412: .preconditionFailed
            case 429: .throttled
            case 503 where code == "SlowDown": .throttled
            case 500...599: .serverError
            default: code == "SlowDown" || code == "RequestTimeout" ? .throttled : .unexpected
            }
        let advice: String =
            switch kind {
            case .rejected where code == "SignatureDoesNotMatch":
                "the server refused the signature: check AWS_SECRET_ACCESS_KEY (and AWS_REGION) for this access key"
            case .rejected where code == "InvalidAccessKeyId":
                "the server does not know this access key: check AWS_ACCESS_KEY_ID"
            case .rejected where code == "RequestTimeTooSkewed":
                "this machine's clock is too far off the server's: fix its time"
            case .rejected:
                "access denied: give these credentials read and write access to the bucket"
            case .notFound: "not found"
            case .preconditionFailed: "the object changed (or already exists)"
            case .throttled: "the server asks to slow down"
            case .serverError: "the server failed"
            default: "an unexpected answer"
            }
        return S3Error(
            code: kind, bucket: bucket, key: key, operation: operation, httpStatus: status, s3Code: code,
            message: serverMessage.map { "\(advice) (\($0))" } ?? advice)
    }

    package static func transfer(_ error: CurlError, bucket: String, key: String, operation: String) -> S3Error {
        let code: Code =
            switch error.code {
            case .unreachable: .unreachable
            case .interrupted: .interrupted
            case .failed: .unexpected
            }
        return S3Error(
            code: code, bucket: bucket, key: key, operation: operation, httpStatus: nil, s3Code: nil,
            message: "the request did not get an answer: \(error.advice)", cause: error)
    }

    /// What the codecs and the worker see, named by darkroom's key: a missing object is
    /// `.notFound`; refused credentials `.rejected` (the job fails until someone fixes them); a
    /// server that stays down `.unavailable` (retried later); the rest `.io`.
    package func streamError(object: String, at offset: Int? = nil) -> StreamError {
        let code: StreamError.Code =
            switch self.code {
            case .notFound: .notFound
            case .rejected: .rejected
            case .throttled, .serverError, .unreachable: .unavailable
            case .interrupted, .preconditionFailed, .unexpected: .io
            }
        return StreamError(code: code, object: object, message: description, byteOffset: offset)
    }
}
