import DarkroomDatabase
import Foundation
import Logging
import Timing

/// One thread's database connection, re-opened with backoff after it breaks, so a PostgreSQL
/// restart pauses the worker instead of ending it. Not thread-safe: one per thread.
final class Reconnecting {
    let url: String
    private let state: WorkerState
    private let logger: Logger
    /// Slots stop waiting for the database when the worker stops; the heartbeat does not.
    private let untilStopped: Bool
    private var connection: DatabaseConnection?
    private var backoff = BackoffWaits(.reconnect)
    private let randomUnit: RandomUnit

    init(url: String, state: WorkerState, logger: Logger, randomUnit: RandomUnit, untilStopped: Bool = true) {
        self.url = url
        self.randomUnit = randomUnit
        self.state = state
        self.logger = logger
        self.untilStopped = untilStopped
    }

    /// The open connection, opening one if needed.
    func live() throws -> DatabaseConnection {
        if let connection, connection.isConnected { return connection }
        let opened = try DatabaseConnection(url)
        connection = opened
        return opened
    }

    /// Whether `error` means the connection is gone (and a fresh one may succeed).
    func isBroken(by error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.isConnectionFailure || connection?.isConnected == false
    }

    /// Forgets the broken connection; the next `live()` opens a new one.
    func drop() { connection = nil }

    /// Runs `body` on the connection. After a failure it waits before returning it: with
    /// backoff when the database is unavailable, a second otherwise (after logging it).
    func attemptResult<T>(_ body: (DatabaseConnection) throws -> T) -> Result<T, any Error> {
        do {
            let value = try body(try live())
            backoff.reset()
            return .success(value)
        } catch {
            if isBroken(by: error) {
                drop()
                let delay = backoff.next(randomUnit: randomUnit.next())
                logger.warning(
                    "database unavailable; reconnecting",
                    metadata: [
                        "error": "\((error as? DatabaseError)?.message ?? "\(error)")",
                        "retry_in_s": "\(String(format: "%.1f", delay.seconds))",
                    ])
                state.sleep(delay, returnEarlyOnStop: untilStopped)
            } else {
                logger.error("database call failed; pausing", metadata: ["error": "\(error)"])
                state.sleep(.seconds(1), returnEarlyOnStop: untilStopped)
            }
            return .failure(error)
        }
    }

    /// `attemptResult`, for callers that only need to know it did not work.
    func attempt<T>(_ body: (DatabaseConnection) throws -> T) -> T? {
        try? attemptResult(body).get()
    }
}
