import DarkroomDatabase
import Foundation
import Logging

/// libpq is synchronous: the dashboard's queries run here, off the event loop, on a few threads
/// that each own one connection (opened on first use, opened again after it broke). A request
/// waits for a free thread; the connection never leaves the closure it is lent to.
public final class DatabasePool: Sendable {
    private let queue: WorkQueue

    /// `size` threads, each with its own connection to `url`.
    public init(url: String, size: Int, logger: Logger) {
        let queue = WorkQueue()
        self.queue = queue
        for index in 0..<max(1, size) {
            let thread = Thread { ConnectionOwner(url: url, logger: logger).serve(queue) }
            thread.name = "darkroom-db-\(index)"
            thread.start()
        }
    }

    deinit { queue.close() }

    /// Runs `body` with a connection on one of the pool's threads.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (DatabaseConnection) throws -> T) async throws
        -> T
    {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = queue.push { connection in
                continuation.resume(with: Result { try body(try connection()) })
            }
            if !accepted { continuation.resume(throwing: DatabasePoolError.closed) }
        }
    }

    /// Lets the threads finish what they hold and end.
    public func close() { queue.close() }
}

/// Work the dashboard's pool would not take.
struct DatabasePoolError: Error, Sendable, CustomStringConvertible {
    enum Code: String, Sendable {
        /// The server is shutting down: the request came after its pool closed.
        case closed = "database_pool_closed"
    }

    var code: Code
    var message: String

    static let closed = DatabasePoolError(
        code: .closed,
        message: "the dashboard is shutting down and takes no more database work; retry on another replica")

    var description: String { "\(message) [\(code.rawValue)]" }
}

/// One pool thread's connection: it alone opens, uses and drops it.
private final class ConnectionOwner {
    let url: String
    let logger: Logger
    var connection: DatabaseConnection?

    init(url: String, logger: Logger) {
        self.url = url
        self.logger = logger
    }

    func serve(_ queue: WorkQueue) {
        while let work = queue.pop() {
            work { try self.current() }
            if let connection, !connection.isConnected {
                logger.warning("dropping a broken database connection; the next request opens a new one")
                self.connection = nil
            }
        }
    }

    func current() throws -> DatabaseConnection {
        if let connection { return connection }
        let opened = try DatabaseConnection(url)
        connection = opened
        return opened
    }
}

/// The pool's work items, first in first out, handed to whichever thread is free. A popped
/// item leaves the queue at once: the queue must not keep what a finished item captured (a
/// closure holding the pool would make a cycle that outlives `close()`).
private final class WorkQueue: @unchecked Sendable {
    typealias Work = @Sendable (() throws -> DatabaseConnection) -> Void
    private let condition = NSCondition()
    private var items: [Work?] = []
    private var head = 0
    private var closed = false

    func push(_ work: @escaping Work) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        items.append(work)
        condition.signal()
        return true
    }

    /// The next item, or nil once closed and drained.
    func pop() -> Work? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        guard head < items.count else { return nil }
        let work = items[head].take()
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return work
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
