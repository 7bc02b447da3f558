import DarkroomTestSupport
import DarkroomWeb
import Testing

/// The dashboard's connection pool lets go of a request as soon as it has run (LeakSanitizer
/// found pools kept alive by their own finished requests).
@Suite struct DatabasePoolTests {
    final class Canary: Sendable {}

    @Test func aFinishedRequestKeepsNothingAliveNotEvenThePoolItCaptured() async throws {
        let url = try TestDatabase.serverURL()
        weak var released: Canary?
        weak var closedPool: DatabasePool?
        do {
            // One thread: it takes the second request only after it has let go of the first.
            let pool = DatabasePool(url: url, size: 1, logger: .quiet)
            closedPool = pool
            do {
                let canary = Canary()
                released = canary
                try await pool.withConnection { [canary, pool] _ in withExtendedLifetime((canary, pool)) {} }
            }
            try await pool.withConnection { _ in }
            #expect(released == nil, "what a finished request captured is released")
            pool.close()
        }
        #expect(closedPool == nil, "a request that captured the pool does not keep it alive")
    }
}
