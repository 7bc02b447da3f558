import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded

// How the route tests reach the dashboard: each request is handed straight to the
// application's responder, as the server does once it has parsed one, without a socket (the
// browser tests and `ServeProcess` cover the real server). Hummingbird's HummingbirdTesting
// does the same, but depends on AsyncHTTPClient and SwiftNIO SSL, and so on a second copy of
// BoringSSL: about 500 of the test build's 1 000 compile steps in every clean `make test`.

/// Where a test sends its requests: only straight to the router.
enum TestingSetup: Sendable {
    case router
}

/// A response as the tests read it.
struct TestResponse: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer
}

protocol TestClientProtocol: Sendable {
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws
        -> TestResponse
}

extension TestClientProtocol {
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: uri, method: method, headers: headers, body: nil)
    }
}

extension ApplicationProtocol where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    /// Runs `body` with a client whose requests go to this application's responder.
    func test<Value: Sendable>(
        _ setup: TestingSetup, _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        try await body(RouterTestClient(responder: try await responder, logger: logger))
    }
}

struct RouterTestClient<Responder: HTTPResponder>: TestClientProtocol
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let responder: Responder
    let logger: Logger

    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws
        -> TestResponse
    {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer()))
        // Closed afterwards: an open channel and its pipeline keep each other alive
        // (LeakSanitizer found one leaked channel, event loop and dispatch queue per request).
        let channel = NIOAsyncTestingChannel()
        let answer: Result<TestResponse, any Error>
        do {
            answer = .success(try await respond(to: request, on: channel))
        } catch {
            answer = .failure(error)
        }
        _ = try await channel.finish(acceptAlreadyClosed: true)
        return try answer.get()
    }

    private func respond(to request: Request, on channel: NIOAsyncTestingChannel) async throws -> TestResponse {
        let context = Responder.Context(source: ApplicationRequestContextSource(channel: channel, logger: logger))
        // What the server answers when a handler throws: the error's own response if it has
        // one (HTTPError), otherwise 500.
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            guard let context = context as? any RequestContext else { throw error }
            response = try error.response(from: request, context: context)
        } catch {
            response = Response(status: .internalServerError)
        }
        let collected = CollectedBody()
        try await response.body.write(collected)
        return TestResponse(
            status: response.status, headers: response.headers, body: collected.bytes.withLockedValue { $0 })
    }
}

/// Keeps what a response body writes.
private struct CollectedBody: ResponseBodyWriter {
    let bytes = NIOLockedValueBox(ByteBuffer())

    func write(_ buffer: ByteBuffer) async throws {
        bytes.withLockedValue { _ = $0.writeImmutableBuffer(buffer) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
