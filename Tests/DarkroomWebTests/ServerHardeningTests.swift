import DarkroomDatabase
import DarkroomMetricsEndpoint
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing
import Timing

/// `darkroom serve` as an operator starts it, against clients that mean harm: slow ones that
/// would hold every connection, and pages on other sites that rebind their name to loopback.
@Suite(.serialized) struct ServerHardeningTests {
    /// A migrated database and a storage root; serve started on it with `arguments`.
    static func serving(
        _ arguments: [String], _ body: @escaping @Sendable (ServeProcess, String) throws -> Void
    ) async throws {
        try await TestDatabase.withFreshDatabase { url in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "darkroom-hardening-\(UUID().uuidString)"
            ).path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try FileManager.default.createDirectory(atPath: folder + "/storage", withIntermediateDirectories: true)
            let darkroom = DarkroomBinary(databaseURL: url, storage: folder + "/storage")
            try darkroom.run(["migrate"])
            try await onThread {
                let server = try ServeProcess(darkroom, arguments: ["--log-level", "critical"] + arguments)
                defer { _ = server.stop() }
                try body(server, url)
            }
        }
    }

    static func port(_ server: ServeProcess) -> Int { Int(server.base.split(separator: ":").last!)! }

    @Test func slowClientsAreClosedAndCannotHoldEveryConnection() async throws {
        try await Self.serving([
            "--header-timeout", "1", "--body-timeout", "1", "--idle-timeout", "2", "--max-connections", "16",
        ]) { server, _ in
            let port = Self.port(server)
            // Twice the cap of clients that send a header line and then a byte now and then.
            var slow: [SlowClient] = []
            for _ in 0..<32 {
                guard let client = try? SlowClient(port: port) else { continue }
                client.send("GET /sign-in HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
                slow.append(client)
            }
            let opened = Date()
            for _ in 0..<3 {
                Thread.sleep(forTimeInterval: 0.3)
                for client in slow { client.send("a") }
            }
            // A person's request gets through: the slow ones were closed to make room.
            let answer = try SlowClient.request(
                port: port, "GET /sign-in HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            #expect(answer.status == 200, "\(answer.text.prefix(200))")
            #expect(Date().timeIntervalSince(opened) < 8)
            let closed = slow.filter { $0.isClosed(within: 3) }.count
            #expect(closed == slow.count, "every client still sending its head after 1 s is closed")

            // A request whose body stalls, and a connection that never sends a byte.
            let upload = try SlowClient(port: port)
            upload.send(
                "POST /sign-in HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nname="
            )
            let silent = try SlowClient(port: port)
            #expect(upload.isClosed(within: 4), "a stalled body is closed")
            #expect(silent.isClosed(within: 5), "an idle connection is closed")
        }
    }

    @Test func aRequestForAnotherHostNameIsRefusedBeforeAnySession() async throws {
        // No account file: whoever reaches loopback acts as the operator `local`.
        try await Self.serving([]) { server, url in
            let port = Self.port(server)
            let rebound = try SlowClient.request(
                port: port, "GET / HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n")
            #expect(rebound.status == 421)
            #expect(!rebound.text.contains("name=\"csrf\""), "no CSRF token for another site's page")
            let posted = try SlowClient.request(
                port: port,
                "POST /jobs/1/retry HTTP/1.1\r\nHost: attacker.example:\(port)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            #expect(posted.status == 421)
            for host in ["localhost:\(port)", "127.0.0.1:\(port)", "LOCALHOST.", "[::1]:\(port)"] {
                let own = try SlowClient.request(
                    port: port, "GET /dashboard.css HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
                #expect(own.status == 200, "\(host)")
            }
            let connection = try DatabaseConnection(url)
            func sessions() throws -> Int64 {
                try connection.query("SELECT count(*) AS n FROM darkroom.dashboard_sessions")[0]["n"].decode(Int64.self)
            }
            #expect(try sessions() == 0, "neither refused requests nor the stylesheet store a session")
            let page = try SlowClient.request(
                port: port, "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            #expect(page.status == 200)
            #expect(try sessions() == 1, "a page's forms need one")
        }
    }

    @Test func theClockDecidesEachPhasesDeadline() {
        let limits = ServerLimits(
            headerTimeout: .seconds(10), bodyTimeout: .seconds(30), idleTimeout: .seconds(60), maxConnections: 4)
        var clock = RequestClock<Double>(limits: limits, opened: 0) { $0 + $1.seconds }
        #expect(clock.deadline == 60 && clock.phase == .idle)
        clock.bytesArrived(at: 5)
        #expect(clock.deadline == 15 && clock.phase == .readingHead)
        clock.bytesArrived(at: 14)
        #expect(clock.deadline == 15, "more bytes of the same head do not move its deadline")
        #expect(clock.isExpired(at: 15) && !clock.isExpired(at: 14.9))
        clock.headArrived(at: 14)
        #expect(clock.deadline == 44 && clock.phase == .readingBody)
        clock.requestEnded()
        #expect(clock.deadline == nil && !clock.isExpired(at: 1e9), "the server answers on its own time")
        clock.bytesArrived(at: 50)
        #expect(clock.phase == .responding, "a pipelined request waits with the one being answered")
        clock.responseEnded(at: 100)
        #expect(clock.deadline == 160 && clock.phase == .idle)
        #expect(limits.problem == nil)
        var bad = limits
        bad.maxConnections = 0
        #expect(bad.problem != nil)
        bad = limits
        bad.headerTimeout = .zero
        #expect(bad.problem != nil)
    }
}
