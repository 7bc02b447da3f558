import ContentDigest
import Crypto
import Foundation
import LibCurl
import S3Answers
import Timing

/// How often and how patiently a transient failure (5xx, throttling, a dropped or refused
/// connection) is tried again before it is reported: bounded, with the shared `Backoff`.
public struct S3RetryPolicy: Sendable {
    public var attempts: Int
    public var backoff: Backoff
    /// The chance behind the backoff's jitter.
    public var randomUnit: RandomUnit

    public init(attempts: Int = 5, backoff: Backoff = .objectStorage, randomUnit: RandomUnit = .system) {
        self.attempts = max(1, attempts)
        self.backoff = backoff
        self.randomUnit = randomUnit
    }

    /// The wait before try `attempt` (counting from 1 for the first retry).
    public func delay(before attempt: Int) -> Duration {
        backoff.delay(afterFailures: attempt, randomUnit: randomUnit.next())
    }

    func sleep(before attempt: Int) {
        let delay = self.delay(before: attempt)
        let (seconds, attoseconds) = delay.components
        var remaining = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        while true {
            var left = timespec()
            guard nanosleep(&remaining, &left) != 0 && errno == EINTR else { return }
            remaining = left
        }
    }
}

extension Backoff {
    /// A request to the object storage: 0.2 s doubling to 5 s, up to half of it taken off.
    public static let objectStorage = Backoff(first: .milliseconds(200), limit: .seconds(5), jitter: 0.5)
}

/// Signed requests to one bucket: every request carries `x-amz-content-sha256` (libcurl's
/// SigV4 signs it but does not add it) and the session token when there is one.
final class S3Client: Sendable {
    let configuration: S3Configuration
    let retry: S3RetryPolicy
    private let http = HTTPClient()

    init(_ configuration: S3Configuration, retry: S3RetryPolicy) {
        self.configuration = configuration
        self.retry = retry
    }

    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    func request(
        _ method: String, objectKey: String, query: [(String, String)] = [], headers: [String] = [],
        payloadHash: String = emptyPayloadHash
    ) -> HTTPRequest {
        var lines = headers + ["x-amz-content-sha256: \(payloadHash)"]
        if let token = configuration.sessionToken { lines.append("x-amz-security-token: \(token)") }
        return HTTPRequest(
            method: method, url: configuration.url(objectKey: objectKey, query: query), headers: lines,
            signing: AWSSigning(
                region: configuration.region, accessKeyID: configuration.accessKeyID,
                secretAccessKey: configuration.secretAccessKey))
    }

    /// Sends a request, retrying what is transient, and returns a 2xx answer or one of
    /// `accepting` (a HEAD's 404); anything else is thrown.
    func send(
        _ method: String, objectKey: String, query: [(String, String)] = [], headers: [String] = [],
        body: UnsafeRawBufferPointer? = nil, accepting: Set<Int> = [], operation: String
    ) throws(S3Error) -> HTTPResponse {
        let hash = body.map(ContentDigest.sha256) ?? Self.emptyPayloadHash
        let request = request(method, objectKey: objectKey, query: query, headers: headers, payloadHash: hash)
        return try withRetries(objectKey: objectKey, operation: operation) { () throws(S3Error) -> HTTPResponse in
            let response: HTTPResponse
            do throws(CurlError) {
                response = try http.perform(request, body: body)
            } catch {
                throw S3Error.transfer(error, bucket: configuration.bucket, key: objectKey, operation: operation)
            }
            guard response.isSuccess || accepting.contains(response.status) else {
                throw S3Error.answer(
                    response.status, body: response.body, bucket: configuration.bucket, key: objectKey,
                    operation: operation)
            }
            return response
        }
    }

    /// Runs `body` until it succeeds, throws something permanent, or runs out of tries.
    func withRetries<T>(objectKey: String, operation: String, _ body: () throws(S3Error) -> T) throws(S3Error) -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch  where error.isTransient && attempt < retry.attempts {
                retry.sleep(before: attempt)
                attempt += 1
            } catch {
                var error = error
                if attempt > 1 { error.message += " (after \(attempt) tries)" }
                throw error
            }
        }
    }

}
