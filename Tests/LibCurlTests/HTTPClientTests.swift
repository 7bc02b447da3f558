import DarkroomTestSupport
import Foundation
import LibCurl
import Testing

/// libcurl's owners against a real HTTP server (the private S3 server `make s3-start` runs,
/// used here as any server that checks SigV4) and against addresses nothing answers.
@Suite struct HTTPClientTests {
    static let unsignedPayload = "x-amz-content-sha256: UNSIGNED-PAYLOAD"

    func signing(_ server: TestObjectStore.Server, secret: String? = nil) -> AWSSigning {
        AWSSigning(
            region: "us-east-1", accessKeyID: server.accessKeyID,
            secretAccessKey: secret ?? server.secretAccessKey)
    }

    @Test func aRefusedConnectionIsUnreachableAndWorthRetrying() {
        let url = "http://127.0.0.1:1/nothing"
        let error = #expect(throws: CurlError.self) {
            _ = try HTTPClient().perform(HTTPRequest(method: "GET", url: url))
        }
        #expect(error?.code == .unreachable && error?.isTransient == true, "\(String(describing: error))")
        #expect(error?.object == url && error?.description.contains(url) == true)
    }

    @Test func aURLLibcurlCannotUseFailsForGood() {
        let error = #expect(throws: CurlError.self) {
            _ = try HTTPClient().perform(HTTPRequest(method: "GET", url: "nosuchscheme://host/x"))
        }
        #expect(error?.code == .failed && error?.isTransient == false, "\(String(describing: error))")
    }

    @Test func signedRequestsAreAcceptedAndAWrongSecretIsRefused() throws {
        let server = try TestObjectStore.server()
        let url = server.endpoint + "/" + TestObjectStore.bucket + "?list-type=2&max-keys=1"
        let http = HTTPClient(maxIdleConnections: 2)
        let listed = try http.perform(
            HTTPRequest(method: "GET", url: url, headers: [Self.unsignedPayload], signing: signing(server)))
        #expect(listed.isSuccess, "\(listed.status): \(String(decoding: listed.body, as: UTF8.self))")
        #expect(String(decoding: listed.body, as: UTF8.self).contains("ListBucketResult"))
        let refused = try http.perform(
            HTTPRequest(
                method: "GET", url: url, headers: [Self.unsignedPayload], signing: signing(server, secret: "wrong")))
        #expect(refused.status == 403, "SigV4 is really signed and really checked")
    }

    @Test func aDownloadIsPulledByItsReaderWithABoundedBuffer() throws {
        let server = try TestObjectStore.server()
        let url = server.endpoint + "/" + TestObjectStore.bucket + "/libcurl-test-" + UUID().uuidString
        let http = HTTPClient()
        let bytes = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        let put = try bytes.withUnsafeBytes { body in
            try http.perform(
                HTTPRequest(method: "PUT", url: url, headers: [Self.unsignedPayload], signing: signing(server)),
                body: body)
        }
        #expect(put.isSuccess, "\(put.status)")
        defer {
            _ = try? http.perform(
                HTTPRequest(method: "DELETE", url: url, headers: [Self.unsignedPayload], signing: signing(server)))
        }

        let limit = 64 << 10
        let download = HTTPDownload(
            HTTPRequest(method: "GET", url: url, headers: [Self.unsignedPayload], signing: signing(server)),
            bufferLimit: limit)
        #expect(try download.awaitResponse().status == 200)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 10_000)
        var largestBuffer = 0
        while true {
            let got = try chunk.withUnsafeMutableBytes { try download.read(into: $0) }
            largestBuffer = max(largestBuffer, download.bufferedBytes)
            if got == 0 { break }
            received += chunk[..<got]
        }
        #expect(received == bytes)
        // At most the limit plus one of libcurl's chunks (its receive buffer, 16 KiB by default, up to 512 KiB).
        #expect(largestBuffer <= limit + (512 << 10), "buffered \(largestBuffer) bytes")
        #expect(largestBuffer < bytes.count / 2, "the transfer paused instead of taking the whole body")
    }
}
