internal import CCurl
import Foundation

/// libcurl's global state, set up once before the first handle.
private let curlStarted: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

/// The one owner of a `CURL *` easy handle and of the header list it sends; the handle is
/// cleaned up with its owner and never leaves it (`withHandle` lends it to a closure).
final class CurlEasy {
    private let handle: OpaquePointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// Strings libcurl keeps pointers to until the next request (URL, method, credentials).
    private var retained: [UnsafeMutablePointer<CChar>] = []

    init() {
        _ = curlStarted
        guard let handle = curl_easy_init() else { fatalError("curl_easy_init failed: out of memory") }
        self.handle = OpaquePointer(handle)
    }

    deinit {
        curl_easy_cleanup(UnsafeMutableRawPointer(handle))
        release()
    }

    func withHandle<T>(_ body: (UnsafeMutableRawPointer) throws -> T) rethrows -> T {
        try body(UnsafeMutableRawPointer(handle))
    }

    /// Resets the handle (keeping its connections) and sets it up for `request`. `context`
    /// receives the write and header callbacks.
    func prepare(
        _ request: HTTPRequest, context: UnsafeMutableRawPointer,
        write: darkroom_curl_data_callback, header: darkroom_curl_data_callback
    ) {
        let raw = UnsafeMutableRawPointer(handle)
        curl_easy_reset(raw)
        release()
        set(CURLOPT_URL, request.url)
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_TCP_KEEPALIVE, 1)
        set(CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeoutMilliseconds)
        set(CURLOPT_LOW_SPEED_LIMIT, request.lowSpeedBytes)
        set(CURLOPT_LOW_SPEED_TIME, request.lowSpeedSeconds)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        switch request.method {
        case "GET": break
        case "HEAD": set(CURLOPT_NOBODY, 1)
        default: set(CURLOPT_CUSTOMREQUEST, request.method)
        }
        if let signing = request.signing {
            set(CURLOPT_AWS_SIGV4, signing.provider)
            set(CURLOPT_USERNAME, signing.accessKeyID)
            set(CURLOPT_PASSWORD, signing.secretAccessKey)
        }
        // (No "Expect:" line to turn off 100-continue: libcurl's SigV4 would sign it empty.)
        for line in request.headers {
            headerList = curl_slist_append(headerList, line)
        }
        _ = darkroom_curl_set_list(raw, CURLOPT_HTTPHEADER, headerList)
        _ = darkroom_curl_set_callback(raw, CURLOPT_WRITEFUNCTION, write)
        _ = darkroom_curl_set_pointer(raw, CURLOPT_WRITEDATA, context)
        _ = darkroom_curl_set_callback(raw, CURLOPT_HEADERFUNCTION, header)
        _ = darkroom_curl_set_pointer(raw, CURLOPT_HEADERDATA, context)
    }

    /// Sends `body` (which must stay alive until the transfer ends) as the request body.
    func setBody(_ body: UnsafeRawBufferPointer) {
        let raw = UnsafeMutableRawPointer(handle)
        _ = darkroom_curl_set_offset(raw, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
        // A zero-length body still needs a non-null pointer, or libcurl reads a string's length.
        _ = darkroom_curl_set_pointer(
            raw, CURLOPT_POSTFIELDS,
            UnsafeMutableRawPointer(mutating: body.baseAddress ?? UnsafeRawPointer(Self.empty.utf8Start)))
    }

    func set(_ option: CURLoption, _ value: Int) {
        _ = darkroom_curl_set_long(UnsafeMutableRawPointer(handle), option, value)
    }

    func set(_ option: CURLoption, _ value: String) {
        // libcurl copies string options, but keeping ours alive costs nothing and is safe
        // whatever the version does.
        let copy = strdup(value)!
        retained.append(copy)
        _ = darkroom_curl_set_string(UnsafeMutableRawPointer(handle), option, copy)
    }

    var responseCode: Int { Int(darkroom_curl_response_code(UnsafeMutableRawPointer(handle))) }

    private func release() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        for pointer in retained { free(pointer) }
        retained.removeAll()
    }

    private static let empty: StaticString = ""

    /// What a failed transfer means for whoever retries.
    static func error(_ code: CURLcode, url: String) -> CurlError {
        let message = String(cString: curl_easy_strerror(code))
        let kind: CurlError.Code =
            switch code {
            case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: .unreachable
            case CURLE_OPERATION_TIMEDOUT, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING,
                CURLE_SSL_CONNECT_ERROR, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_WEIRD_SERVER_REPLY:
                .interrupted
            default: .failed
            }
        return CurlError(code: kind, curlCode: Int32(code.rawValue), message: message, object: url)
    }
}

/// Collects response headers: the status line starts a new set (after a redirect or a
/// `100 Continue`), then "Name: value" lines, names lower-cased.
struct HeaderCollector {
    var headers: [String: String] = [:]
    /// The last status line's code.
    var status: Int?

    mutating func take(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            headers = [:]
            status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].lowercased()
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        headers[name] = value
    }
}
