import Foundation
import LibPQ
import Logging

/// One thread's database connection, re-opened with backoff after it breaks, so a PostgreSQL
/// restart pauses the worker instead of ending it. Not thread-safe: one per thread.
final class Reconnecting {
    let url: String
    private let state: WorkerState
    private let logger: Logger
    /// Slots stop waiting for the database when the worker stops; report writers do not.
    private let untilStopped: Bool
    private var connection: PostgresConnection?
    private var backoff = Backoff()

    init(url: String, state: WorkerState, logger: Logger, untilStopped: Bool = true) {
        self.url = url
        self.state = state
        self.logger = logger
        self.untilStopped = untilStopped
    }

    /// The open connection, opening one if needed.
    func live() throws -> PostgresConnection {
        if let connection, connection.isConnected { return connection }
        let opened = try PostgresConnection(url)
        connection = opened
        return opened
    }

    /// Drops the broken connection and waits before the next try.
    func lost(_ error: PostgresError, returnEarlyOnStop: Bool = false) {
        connection = nil
        let delay = backoff.next()
        logger.warning("database unavailable; reconnecting", metadata: [
            "error": "\(error.message)", "retry_in_s": "\(String(format: "%.1f", delay.seconds))"])
        state.sleep(delay, returnEarlyOnStop: returnEarlyOnStop)
    }

    /// Runs `body` on the connection. Returns nil when the database was unavailable (after
    /// waiting with backoff) or the call failed (after logging it and pausing a second).
    func attempt<T>(_ body: (PostgresConnection) throws -> T) -> T? {
        do {
            let value = try body(try live())
            backoff.reset()
            return value
        } catch let error as PostgresError where error.isConnectionFailure || connection?.isConnected == false {
            lost(error, returnEarlyOnStop: untilStopped)
        } catch {
            logger.error("database call failed; pausing", metadata: ["error": "\(error)"])
            state.sleep(.seconds(1), returnEarlyOnStop: untilStopped)
        }
        return nil
    }
}
