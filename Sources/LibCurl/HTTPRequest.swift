/// One HTTP request as darkroom's object store sends it: the method, the full URL (query
/// already encoded), extra header lines, and how to sign it. The body, if any, is passed
/// alongside at `perform` time so it is never copied.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    /// "Name: value" lines.
    public var headers: [String]
    public var signing: AWSSigning?
    /// Give up connecting after this long (a host that does not answer).
    public var connectTimeoutMilliseconds: Int = 10_000
    /// Give up when fewer than `lowSpeedBytes` arrive in `lowSpeedSeconds` (a stalled peer).
    public var lowSpeedBytes: Int = 1
    public var lowSpeedSeconds: Int = 60

    public init(method: String, url: String, headers: [String] = [], signing: AWSSigning? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.signing = signing
    }
}

/// AWS Signature Version 4, which libcurl computes (`CURLOPT_AWS_SIGV4`) over the method,
/// URL, host, `x-amz-*` headers and the `x-amz-content-sha256` header the caller must send.
public struct AWSSigning: Sendable {
    public var region: String
    public var service: String
    public var accessKeyID: String
    public var secretAccessKey: String

    public init(region: String, service: String = "s3", accessKeyID: String, secretAccessKey: String) {
        self.region = region
        self.service = service
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    var provider: String { "aws:amz:\(region):\(service)" }
}

/// What came back: the final status, the headers (names lower-cased) and, for buffered
/// requests, the body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// A transfer that failed below HTTP (no answer, a reset, a timeout), with libcurl's code and
/// message, and whether trying again can help.
/// A transfer that failed below HTTP: which URL, what libcurl said, and whether trying again
/// can help. Code decides on `code`, never on `message`.
public struct CurlError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// Could not connect or resolve: the server is down or unreachable.
        case unreachable = "http_unreachable"
        /// The connection broke or stalled part way (reset, timeout, a short body).
        case interrupted = "http_interrupted"
        /// Anything else libcurl refused (a bad URL, an option it lacks): trying again will not help.
        case failed = "http_failed"
    }

    public var code: Code
    /// libcurl's `CURLcode`: the underlying cause, as libcurl numbers it.
    public var curlCode: Int32
    /// libcurl's words for it (`curl_easy_strerror`), or what darkroom found wrong.
    public var message: String
    /// The URL requested.
    public var object: String

    public init(code: Code, curlCode: Int32, message: String, object: String) {
        self.code = code
        self.curlCode = curlCode
        self.message = message
        self.object = object
    }

    public var isTransient: Bool { code != .failed }

    /// What to do about it, for people.
    public var advice: String {
        switch code {
        case .unreachable: "check that the server is up and its address (endpoint) is right"
        case .interrupted: "the connection broke; trying again usually works"
        case .failed: "libcurl refused the request itself; check the URL and libcurl's build"
        }
    }

    public var description: String { "\(object): \(message) (libcurl error \(curlCode)); \(advice)" }
}
