import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy on loopback in front of a server, which cuts a connection (both ways, at
/// once) after it has passed `cutAfter` bytes of the server's answers, for the first `cuts`
/// connections that get that far: a dropped connection mid-transfer, for real, under libcurl.
public final class CuttingProxy: @unchecked Sendable {
    public private(set) var port: UInt16
    private let listener: Int32
    private let target: UInt16
    private let cutAfter: Int
    private let lock = NSLock()
    private var cutsLeft: Int
    private var stopped = false
    /// Connections cut so far.
    public var cutsMade: Int { lock.withLock { made } }
    private var made = 0

    public init(targetPort: UInt16, cutAfter: Int, cuts: Int) throws {
        port = 0
        target = targetPort
        self.cutAfter = cutAfter
        cutsLeft = cuts
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            throw TestDatabase.SetupError(description: "proxy: cannot listen")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        guard port != 0 else { throw TestDatabase.SetupError(description: "proxy: no port") }
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// "http://127.0.0.1:PORT", an endpoint for the object store.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    public func stop() {
        lock.withLock { stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            if lock.withLock({ stopped }) {
                close(client)
                return
            }
            let server = connectToTarget()
            guard server >= 0 else {
                close(client)
                continue
            }
            Thread.detachNewThread { [self] in pump(from: client, to: server, limit: nil) }
            Thread.detachNewThread { [self] in pump(from: server, to: client, limit: cutAfter) }
        }
    }

    private func connectToTarget() -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = target.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    /// Copies until either side closes, or until `limit` bytes have passed while cuts are
    /// left: then both sides are shut down, as a reset connection would be.
    private func pump(from source: Int32, to destination: Int32, limit: Int?) {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var passed = 0
        var limit = limit
        while true {
            let room = limit.map { min(buffer.count, $0 - passed) } ?? buffer.count
            if room <= 0 {
                let cut = lock.withLock { () -> Bool in
                    guard cutsLeft > 0 else { return false }
                    cutsLeft -= 1
                    made += 1
                    return true
                }
                if cut { break }
                limit = nil
                continue
            }
            let got = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, room, 0) }
            guard got > 0 else { break }
            var sent = 0
            while sent < got {
                let wrote = buffer.withUnsafeBytes {
                    send(destination, $0.baseAddress! + sent, got - sent, Int32(MSG_NOSIGNAL))
                }
                guard wrote > 0 else { break }
                sent += wrote
            }
            passed += got
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }
}
