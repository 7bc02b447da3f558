import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP client that sends what it is told, when it is told: a slow client (slowloris), a stalled
/// upload, a request with a forged `Host`. Blocking sockets on the caller's thread.
final class SlowClient {
    let descriptor: Int32

    struct Failure: Error, CustomStringConvertible { var description: String }

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "connect: errno \(errno)")
        }
    }

    deinit { close(descriptor) }

    /// Sends `text`; false once the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            == bytes.count
    }

    /// Everything the server sends until it closes the connection or `seconds` pass, and whether it closed.
    func receive(for seconds: Double) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard poll(&ready, 1, left) > 0 else { return (String(decoding: received, as: UTF8.self), false) }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[0..<count]
        }
    }

    /// Whether the server closed the connection within `seconds` (what it sent is ignored).
    func isClosed(within seconds: Double) -> Bool { receive(for: seconds).closed }

    /// One request, answered: the status line's code and the whole response.
    static func request(port: Int, _ text: String, seconds: Double = 10) throws -> (status: Int, text: String) {
        let client = try SlowClient(port: port)
        client.send(text)
        let (answer, _) = client.receive(for: seconds)
        let status = answer.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, answer)
    }
}
