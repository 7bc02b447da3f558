import Foundation
import LibCurl

/// What a real HTTP GET answered.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var contentType: String?
    public var body: String
}

/// One real HTTP GET over the network stack (a scrape as Prometheus makes it), not through a
/// test client that skips the server's sockets. It goes through darkroom's own libcurl client:
/// URLSession loses memory on every request (swift-corelibs-foundation frees a parsed URL with
/// curl_free, not curl_url_cleanup), which LeakSanitizer reports.
public func httpGet(_ url: String) async throws -> HTTPAnswer {
    // The transfer blocks its thread, so it gets one of its own, off the cooperative pool. A
    // hung server's guard, not a timing check: libcurl gives up after 60 s without a byte.
    let thread = DedicatedThreads(count: 1, name: "http-get")
    defer { thread.shutdown() }
    let response = try await withTaskExecutorPreference(thread) {
        try HTTPClient(maxIdleConnections: 0).perform(HTTPRequest(method: "GET", url: url))
    }
    return HTTPAnswer(
        status: response.status, contentType: response.headers["content-type"],
        body: String(decoding: response.body, as: UTF8.self))
}

/// Starts a server made by `make` (given the callback it calls with its bound port), runs
/// `body` with that port, then stops the server and waits until it has let go of the port.
/// The server and `body` run on threads of their own, not on the cooperative pool that
/// synchronous tests beside them may hold.
public func withServer<T>(
    _ make: (_ onListening: @escaping @Sendable (Int) async -> Void) -> @Sendable () async throws -> Void,
    then body: (_ port: Int) async throws -> T
) async throws -> T {
    let threads = DedicatedThreads(name: "test-server")
    defer { threads.shutdown() }
    return try await withTaskExecutorPreference(threads) {
        try await serving(on: threads, make, body)
    }
}

private func serving<T>(
    on threads: DedicatedThreads,
    _ make: (_ onListening: @escaping @Sendable (Int) async -> Void) -> @Sendable () async throws -> Void,
    _ body: (_ port: Int) async throws -> T
) async throws -> T {
    let (ports, announce) = AsyncStream.makeStream(of: Int.self)
    let run = make { announce.yield($0) }
    let server = Task(executorPreference: threads) {
        defer { announce.finish() }
        try await run()
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else {
        try await server.value
        throw ServerDidNotStart()
    }
    let result: Result<T, any Error>
    do { result = .success(try await body(port)) } catch { result = .failure(error) }
    server.cancel()
    _ = await server.result
    return try result.get()
}

public struct ServerDidNotStart: Error {}
