import DarkroomObjectStore
import DarkroomStorage
import Foundation
import LibCurl
import Timing

/// The private S3 server `make s3-start` runs (SeaweedFS, authentication on), as the tests
/// reach it: DARKROOM_TEST_S3_ENDPOINT, _ACCESS_KEY and _SECRET_KEY, which `make test` sets.
/// Tests that need it fail (never skip) without them. Each test works under a prefix of its
/// own in the test bucket, so tests never see each other's objects.
public enum TestObjectStore {
    public static let endpointVariable = "DARKROOM_TEST_S3_ENDPOINT"
    public static let bucket = ProcessInfo.processInfo.environment["DARKROOM_TEST_S3_BUCKET"] ?? "darkroom-test"

    public struct Server: Sendable {
        public var endpoint: String
        public var accessKeyID: String
        public var secretAccessKey: String
    }

    public static func server() throws -> Server {
        let environment = ProcessInfo.processInfo.environment
        guard let endpoint = environment[endpointVariable], !endpoint.isEmpty,
            let access = environment["DARKROOM_TEST_S3_ACCESS_KEY"], !access.isEmpty,
            let secret = environment["DARKROOM_TEST_S3_SECRET_KEY"], !secret.isEmpty
        else {
            throw TestDatabase.SetupError(
                description: "\(endpointVariable), DARKROOM_TEST_S3_ACCESS_KEY and DARKROOM_TEST_S3_SECRET_KEY "
                    + "are not set: run `make s3-start` and the suite with `make test` (or export what `make s3-env` prints as these)"
            )
        }
        return Server(endpoint: endpoint, accessKeyID: access, secretAccessKey: secret)
    }

    /// A fresh prefix of the test bucket, with the bucket created if needed. `endpoint`
    /// replaces the server's (a proxy in front of it); `secret` the right one (to be refused).
    public static func storage(
        prefix: String = "test-" + UUID().uuidString.lowercased(), endpoint: String? = nil,
        secret: String? = nil,
        retry: S3RetryPolicy = S3RetryPolicy(
            attempts: 3, backoff: Backoff(first: .milliseconds(50), limit: .seconds(5), jitter: 0.5)),
        partSize: Int = S3Storage.minimumPartSize
    ) throws -> S3Storage {
        let server = try server()
        let configuration = try S3Configuration(
            url: "s3://\(bucket)/\(prefix)", endpoint: endpoint ?? server.endpoint, region: "us-east-1",
            accessKeyID: server.accessKeyID, secretAccessKey: secret ?? server.secretAccessKey)
        let storage = S3Storage(
            configuration, scratchDirectory: NSTemporaryDirectory(), partSize: partSize, retry: retry)
        if secret == nil { try createBucketIfMissing(on: endpoint ?? server.endpoint, server) }
        return storage
    }

    /// Creates the test bucket when the server does not have it yet (darkroom itself never
    /// creates buckets); one these credentials already own is fine. Path-style, as darkroom
    /// addresses a server given by its endpoint.
    static func createBucketIfMissing(on endpoint: String, _ server: Server) throws {
        let signing = AWSSigning(
            region: "us-east-1", accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey)
        let emptyPayload = "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        let http = HTTPClient(maxIdleConnections: 1)
        func send(_ method: String) throws -> HTTPResponse {
            try http.perform(
                HTTPRequest(method: method, url: endpoint + "/" + bucket, headers: [emptyPayload], signing: signing))
        }
        guard try send("HEAD").status == 404 else { return }
        let created = try send("PUT")
        guard created.isSuccess || created.status == 409 else {
            throw TestDatabase.SetupError(
                description: "could not create the test bucket \(bucket): HTTP \(created.status)")
        }
    }
}
