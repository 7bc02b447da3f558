internal import CCurl

/// A GET whose body is pulled by the reader as it arrives: `read` drives libcurl's multi
/// interface until bytes are there, and the transfer pauses whenever `bufferLimit` bytes wait
/// unread, so memory stays bounded however slowly the reader goes. Owns its easy and multi
/// handles; use from one thread at a time.
public final class HTTPDownload {
    private let easy = CurlEasy()
    private let multi: OpaquePointer
    private let url: String
    private let bufferLimit: Int
    fileprivate var buffer: [UInt8] = []
    private var start = 0
    fileprivate var paused = false
    fileprivate var headers = HeaderCollector()
    fileprivate var headersComplete = false
    private var result: CURLcode?

    /// Starts the transfer; nothing is sent until the first `awaitResponse` or `read`.
    public init(_ request: HTTPRequest, bufferLimit: Int) {
        url = request.url
        self.bufferLimit = bufferLimit
        multi = OpaquePointer(curl_multi_init()!)
        let context = Unmanaged.passUnretained(self).toOpaque()
        easy.prepare(request, context: context, write: streamingWrite, header: streamingHeader)
        easy.set(CURLOPT_BUFFERSIZE, min(max(bufferLimit, 16 << 10), 512 << 10))
        _ = easy.withHandle { curl_multi_add_handle(UnsafeMutableRawPointer(multi), $0) }
    }

    deinit {
        _ = easy.withHandle { curl_multi_remove_handle(UnsafeMutableRawPointer(multi), $0) }
        curl_multi_cleanup(UnsafeMutableRawPointer(multi))
    }

    /// Waits for the status line and headers (or the end of a transfer that failed first).
    public func awaitResponse() throws(CurlError) -> (status: Int, headers: [String: String]) {
        while !headersComplete {
            if let result {
                guard result == CURLE_OK else { throw CurlEasy.error(result, url: url) }
                break
            }
            step()
        }
        return (easy.responseCode, headers.headers)
    }

    /// Copies up to `destination.count` bytes of the body; 0 at its end. Throws when the
    /// transfer broke before the end.
    public func read(into destination: UnsafeMutableRawBufferPointer) throws(CurlError) -> Int {
        while true {
            let waiting = buffer.count - start
            if waiting > 0 {
                let count = min(waiting, destination.count)
                buffer.withUnsafeBytes {
                    destination.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: count)
                }
                start += count
                if start == buffer.count {
                    buffer.removeAll(keepingCapacity: true)
                    start = 0
                }
                return count
            }
            if let result {
                guard result == CURLE_OK else { throw CurlEasy.error(result, url: url) }
                return 0
            }
            if paused {
                paused = false
                // May deliver the held bytes at once, through the write callback.
                _ = easy.withHandle { curl_easy_pause($0, darkroom_curl_pause_continue()) }
                continue
            }
            step()
        }
    }

    /// Bytes received and not yet read, at most `bufferLimit` plus one of libcurl's chunks.
    public var bufferedBytes: Int { buffer.count - start }

    fileprivate var isFull: Bool { buffer.count - start >= bufferLimit }

    /// One turn of the transfer: move what the sockets have, or wait up to a second for them.
    private func step() {
        var running: Int32 = 0
        let raw = UnsafeMutableRawPointer(multi)
        _ = curl_multi_perform(raw, &running)
        var left: Int32 = 0
        while let message = curl_multi_info_read(raw, &left) {
            if message.pointee.msg == CURLMSG_DONE {
                result = message.pointee.data.result
            }
        }
        if result == nil && running > 0 && buffer.count == start {
            _ = curl_multi_poll(raw, nil, 0, 1000, nil)
        }
    }
}

private let streamingWrite: darkroom_curl_data_callback = { data, size, count, context in
    let download = Unmanaged<HTTPDownload>.fromOpaque(context!).takeUnretainedValue()
    if download.isFull {
        download.paused = true
        return darkroom_curl_write_pause()
    }
    download.buffer.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}

private let streamingHeader: darkroom_curl_data_callback = { data, size, count, context in
    let download = Unmanaged<HTTPDownload>.fromOpaque(context!).takeUnretainedValue()
    let line = UnsafeRawBufferPointer(start: data, count: size * count)
    if line.starts(with: "HTTP/".utf8) {
        download.headersComplete = false
    } else if line.count <= 2 && line.allSatisfy({ $0 == 13 || $0 == 10 }) {
        // The blank line after the headers; a 1xx answer's headers are followed by the real ones.
        if let status = download.headers.status, status >= 200 { download.headersComplete = true }
        return size * count
    }
    download.headers.take(line)
    return size * count
}
