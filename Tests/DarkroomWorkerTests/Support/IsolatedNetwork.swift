import DarkroomTestSupport
import Foundation
import Synchronization
import Testing

/// A network namespace joined to the host by a veth pair, for cutting processes off the
/// database for real. A TCP forwarder (socat) on the host end of the link passes connections on
/// to a host address, such as PostgreSQL on 127.0.0.1, which the namespace cannot reach
/// otherwise. Taking the link down inside the namespace is a pulled cable: packets are dropped
/// and nothing is reset, so open connections stall and resume when the link is back.
///
/// Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN), `ip` (iproute2) and `socat`; `make test`
/// installs both. Names, addresses and the forwarder belong to this process alone, so other
/// tests and other test runs on the machine are not disturbed.
final class IsolatedNetwork {
    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    /// Every namespace this type makes is called `darkroom-t-<pid of the test process>-<n>`.
    static let namePrefix = "darkroom-t-"
    private static let made = Atomic<Int>(0)

    let name: String
    let hostLink: String
    let namespaceLink: String
    /// The host end of the link, where the forwarder listens; .2 of the same /30 is inside.
    let hostAddress: String
    let namespaceAddress: String
    /// The forwarder's port on `hostAddress`: the address is ours alone, so any port is free.
    let port = 5432

    private let ip: String
    private var forwarder: Process?
    private let forwarderLog: String

    /// Runs a program in the namespace: `ip netns exec` execs it in place, so its pid is the
    /// program's own.
    var launcher: [String] { [ip, "netns", "exec", name] }

    /// Creates the namespace and the link, and forwards `hostAddress:port` to `target`.
    init(forwardingTo target: (host: String, port: Int)) throws {
        ip = try Self.program("ip", package: "iproute2")
        let socat = try Self.program("socat", package: "socat")
        let pid = getpid()
        let n = Self.made.add(1, ordering: .relaxed).newValue % 1000
        name = Self.namePrefix + "\(pid)-\(n)"
        hostLink = "drk\(pid)h\(n)"  // at most 15 characters
        namespaceLink = "drk\(pid)n\(n)"
        forwarderLog = NSTemporaryDirectory() + "darkroom-forwarder-\(UUID().uuidString).log"
        Self.removeStaleNamespaces(ip: ip)
        let block = try Self.freeBlock(ip: ip, from: Int(pid) &* 31 &+ n)
        hostAddress = "10.231.\(block / 64).\(block % 64 * 4 + 1)"
        namespaceAddress = "10.231.\(block / 64).\(block % 64 * 4 + 2)"
        do {
            try Self.run(ip, "netns", "add", name)
            try Self.run(ip, "link", "add", hostLink, "type", "veth", "peer", "name", namespaceLink, "netns", name)
            try Self.run(ip, "address", "add", hostAddress + "/30", "dev", hostLink)
            try Self.run(ip, "link", "set", hostLink, "up")
            try Self.run(ip, "-n", name, "address", "add", namespaceAddress + "/30", "dev", namespaceLink)
            try Self.run(ip, "-n", name, "link", "set", "lo", "up")
            try Self.run(ip, "-n", name, "link", "set", namespaceLink, "up")
            try startForwarder(socat: socat, to: target)
        } catch {
            tearDown()
            throw error
        }
    }

    /// Up or down from inside the namespace, as unplugging its cable would.
    func setLink(up: Bool) throws {
        try Self.run(ip, "-n", name, "link", "set", namespaceLink, up ? "up" : "down")
    }

    /// Stops the forwarder and removes the link and the namespace. Safe to call twice; records
    /// an issue if something is left behind.
    func tearDown() {
        if let forwarder {
            // `timeout` leads its own process group: socat and the children it forked per connection.
            kill(-forwarder.processIdentifier, SIGKILL)
            kill(forwarder.processIdentifier, SIGKILL)
            forwarder.waitUntilExit()
            self.forwarder = nil
        }
        try? FileManager.default.removeItem(atPath: forwarderLog)
        // Deleting either end of a veth pair deletes both.
        _ = try? Self.run(ip, "link", "delete", hostLink)
        _ = try? Self.run(ip, "netns", "delete", name)
        if let namespaces = try? Self.run(ip, "netns", "list"),
            namespaces.split(separator: "\n").contains(where: {
                $0.split(separator: " ").first.map(String.init) == name
            })
        {
            Issue.record("network namespace \(name) is left behind; remove it with `ip netns delete \(name)`")
        }
    }

    // MARK: Internals

    /// socat under `timeout`, which bounds its life should this process die without tearing
    /// down, and makes a process group that `tearDown` ends at once.
    private func startForwarder(socat: String, to target: (host: String, port: Int)) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        let targetHost = target.host.contains(":") ? "[\(target.host)]" : target.host
        process.arguments = [
            "--kill-after=5", "600", socat,
            "TCP4-LISTEN:\(port),bind=\(hostAddress),fork,reuseaddr", "TCP:\(targetHost):\(target.port)",
        ]
        _ = FileManager.default.createFile(atPath: forwarderLog, contents: nil)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: forwarderLog)
        try process.run()
        forwarder = process
        // Given up at once if socat exits (a port taken, say): its log says why.
        let listening = eventually(timeout: .seconds(10), every: .milliseconds(20)) {
            !process.isRunning || Self.accepts(hostAddress, port)
        }
        guard listening, process.isRunning else {
            let log = (try? String(contentsOfFile: forwarderLog, encoding: .utf8)) ?? ""
            throw SetupError(description: "socat did not start listening on \(hostAddress):\(port): \(log)")
        }
    }

    /// Whether a TCP connection to `address:port` opens (from the host: no need for the link).
    private static func accepts(_ address: String, _ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, address, &target.sin_addr) == 1 else { return false }
        return withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A /30 of 10.231.0.0/16 (`block` 0…16383) that no interface on the host uses yet,
    /// starting from one picked by the pid so that concurrent runs start apart.
    private static func freeBlock(ip: String, from seed: Int) throws -> Int {
        var used = Set<Int>()
        for word in try run(ip, "-4", "-o", "address", "show").split(whereSeparator: \.isWhitespace)
        where word.hasPrefix("10.231.") {
            let octets = word.split(separator: "/")[0].split(separator: ".").compactMap { Int($0) }
            if octets.count == 4 { used.insert(octets[2] * 64 + octets[3] / 4) }
        }
        guard let block = (0..<16384).lazy.map({ (seed + $0) % 16384 }).first(where: { !used.contains($0) }) else {
            throw SetupError(description: "no free /30 left in 10.231.0.0/16")
        }
        return block
    }

    /// Namespaces of test processes that died without tearing down (killed, or a crash).
    private static func removeStaleNamespaces(ip: String) {
        guard let list = try? run(ip, "netns", "list") else { return }
        for line in list.split(separator: "\n") {
            guard let name = line.split(separator: " ").first, name.hasPrefix(namePrefix),
                let pid = name.dropFirst(namePrefix.count).split(separator: "-").first.flatMap({ Int32($0) }),
                pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            _ = try? run(ip, "netns", "delete", String(name))
        }
    }

    private static func program(_ name: String, package: String) throws -> String {
        for folder in ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
            return "\(folder)/\(name)"
        }
        throw SetupError(
            description:
                "\(name) is not installed: `make test` installs it (Debian package \(package), APT_OPS in the Makefile)"
        )
    }

    /// Runs a command to its end; its stdout, or an error with its stderr.
    @discardableResult
    static func run(_ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errors = PipeReader(err.fileHandleForReading.fileDescriptor)
        let output = String(decoding: PipeReader.readAll(out.fileHandleForReading.fileDescriptor), as: UTF8.self)
        let message = String(decoding: errors.result(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SetupError(
                description: "\(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(message)")
        }
        return output
    }
}
