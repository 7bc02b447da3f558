internal import CCurl
import Foundation

/// Requests whose whole answer fits in memory (HEAD, PUT of a part, the XML of a listing),
/// over a few reused easy handles so connections stay open between requests. Any thread may
/// call it; each request has a handle to itself while it runs.
public final class HTTPClient: @unchecked Sendable {
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var idle: [CurlEasy] = []
    private let maxIdle: Int

    public init(maxIdleConnections: Int = 8) {
        maxIdle = maxIdleConnections
    }

    /// Sends `request` with `body` and returns the answer; a body longer than
    /// `maxResponseBytes` is cut there (answers here are small XML documents).
    public func perform(
        _ request: HTTPRequest, body: UnsafeRawBufferPointer? = nil,
        maxResponseBytes: Int = 4 << 20
    ) throws(CurlError) -> HTTPResponse {
        let easy = take()
        defer { give(easy) }
        let receiver = BufferedReceiver(limit: maxResponseBytes)
        let context = Unmanaged.passUnretained(receiver).toOpaque()
        easy.prepare(request, context: context, write: bufferedWrite, header: bufferedHeader)
        if let body { easy.setBody(body) }
        let code = withExtendedLifetime(receiver) { easy.withHandle { curl_easy_perform($0) } }
        guard code == CURLE_OK else { throw CurlEasy.error(code, url: request.url) }
        return HTTPResponse(status: easy.responseCode, headers: receiver.headers.headers, body: receiver.body)
    }

    private func take() -> CurlEasy {
        lock.lock()
        defer { lock.unlock() }
        return idle.popLast() ?? CurlEasy()
    }

    private func give(_ easy: CurlEasy) {
        lock.lock()
        defer { lock.unlock() }
        if idle.count < maxIdle { idle.append(easy) }
    }
}

private final class BufferedReceiver {
    let limit: Int
    var headers = HeaderCollector()
    var body: [UInt8] = []

    init(limit: Int) { self.limit = limit }
}

private let bufferedWrite: darkroom_curl_data_callback = { data, size, count, context in
    let receiver = Unmanaged<BufferedReceiver>.fromOpaque(context!).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    receiver.body.append(contentsOf: bytes.prefix(max(0, receiver.limit - receiver.body.count)))
    return size * count
}

private let bufferedHeader: darkroom_curl_data_callback = { data, size, count, context in
    let receiver = Unmanaged<BufferedReceiver>.fromOpaque(context!).takeUnretainedValue()
    receiver.headers.take(UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}
