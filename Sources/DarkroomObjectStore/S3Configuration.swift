import DarkroomStorage

/// Where a bucket is and how to reach it: `DARKROOM_STORAGE=s3://bucket/prefix` with the
/// endpoint, region and credentials of the usual AWS variables. Checked when made.
public struct S3Configuration: Sendable, Equatable {
    public enum Addressing: String, Sendable, CaseIterable {
        /// `http://endpoint/bucket/key`: what local servers (SeaweedFS, Ceph, MinIO) expect.
        case path
        /// `https://bucket.endpoint/key`: AWS's default.
        case virtual
    }

    public var bucket: String
    /// Every key lives under it ("" or "photos/2026"), without slashes at either end.
    public var prefix: String
    /// Scheme and host (and port), without a path: "http://127.0.0.1:8333".
    public var endpoint: String
    public var region: String
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?
    public var addressing: Addressing

    /// Parses `s3://bucket/prefix` and checks the rest. `endpoint` nil means AWS in `region`.
    public init(
        url: String, endpoint: String?, region: String?, accessKeyID: String?, secretAccessKey: String?,
        sessionToken: String? = nil, addressing: Addressing? = nil
    ) throws(StorageError) {
        let parsed = try S3Location(parsing: url)
        let region = region.flatMap { $0.isEmpty ? nil : $0 } ?? "us-east-1"
        let endpoint = endpoint.flatMap { $0.isEmpty ? nil : $0 }
        var resolvedEndpoint = endpoint ?? "https://s3.\(region).amazonaws.com"
        while resolvedEndpoint.hasSuffix("/") { resolvedEndpoint.removeLast() }
        guard resolvedEndpoint.hasPrefix("http://") || resolvedEndpoint.hasPrefix("https://"),
            !resolvedEndpoint.dropFirst(resolvedEndpoint.hasPrefix("https://") ? 8 : 7).contains("/")
        else {
            throw StorageError(
                code: .notConfigured,
                message:
                    "the endpoint \"\(resolvedEndpoint)\" must be http(s)://HOST[:PORT] (AWS_ENDPOINT_URL or --aws-endpoint-url)",
                object: url)
        }
        guard let accessKeyID, !accessKeyID.isEmpty, let secretAccessKey, !secretAccessKey.isEmpty else {
            throw StorageError(
                code: .notConfigured,
                message:
                    "no credentials: set AWS_ACCESS_KEY_ID (or --aws-access-key-id) and AWS_SECRET_ACCESS_KEY (or AWS_SECRET_ACCESS_KEY_FILE, naming a file that holds it)",
                object: url)
        }
        self.bucket = parsed.bucket
        self.prefix = parsed.prefix
        self.endpoint = resolvedEndpoint
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
        self.addressing = addressing ?? (endpoint == nil ? .virtual : .path)
    }

    /// "s3://bucket/prefix", for messages.
    public var location: String { S3Location(bucket: bucket, prefix: prefix).description }

    /// The bucket's key of one of darkroom's keys: the prefix, then the key.
    func objectKey(_ key: StorageKey) -> String { objectKey(key.rawValue) }

    func objectKey(_ relative: String) -> String { prefix.isEmpty ? relative : prefix + "/" + relative }

    /// darkroom's key of a bucket key listed under the prefix, or nil if it is outside it.
    func relativeKey(_ objectKey: String) -> String? {
        if prefix.isEmpty { return objectKey }
        guard objectKey.hasPrefix(prefix + "/") else { return nil }
        return String(objectKey.dropFirst(prefix.count + 1))
    }

    /// The URL of `objectKey` ("" for the bucket itself) with `query` (names sorted, as the
    /// signature's canonical form wants, and every name with a `=`: `?uploads=`).
    func url(objectKey: String, query: [(String, String)] = []) -> String {
        let path = objectKey.split(separator: "/", omittingEmptySubsequences: false).map { Self.encode($0) }.joined(
            separator: "/")
        var url: String
        switch addressing {
        case .path:
            url = "\(endpoint)/\(bucket)/\(path)"
        case .virtual:
            let scheme = endpoint.hasPrefix("https://") ? "https://" : "http://"
            url = "\(scheme)\(bucket).\(endpoint.dropFirst(scheme.count))/\(path)"
        }
        if !query.isEmpty {
            url +=
                "?"
                + query.sorted { $0.0 < $1.0 }.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(
                    separator: "&")
        }
        return url
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters, as SigV4 wants.
    static func encode<S: StringProtocol>(_ text: S) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                encoded += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return encoded
    }
}
