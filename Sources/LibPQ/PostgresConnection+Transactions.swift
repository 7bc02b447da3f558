internal import CPostgres

/// Where the connection stands with respect to transaction blocks (`PQtransactionStatus`).
public enum PostgresTransactionStatus: Sendable, Hashable {
    case idle
    /// A command is in progress.
    case active
    case inTransaction
    /// Inside a transaction block that an error aborted; only ROLLBACK will be accepted.
    case inFailedTransaction
    /// The connection is bad.
    case unknown
}

extension PostgresConnection {
    public var transactionStatus: PostgresTransactionStatus {
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: return .idle
        case PQTRANS_ACTIVE: return .active
        case PQTRANS_INTRANS: return .inTransaction
        case PQTRANS_INERROR: return .inFailedTransaction
        default: return .unknown
        }
    }

    /// Runs `body` in a transaction: COMMIT when it returns, ROLLBACK when it throws.
    ///
    /// Called inside another transaction it uses a savepoint, so the inner part can be undone alone.
    /// If `body` catches a database error itself, the transaction is still aborted on the server;
    /// this is rolled back and reported rather than silently "committed".
    public func withTransaction<T>(_ body: () throws -> T) throws -> T {
        let savepoint = transactionStatus == .idle ? nil : "darkroom_savepoint_\(transactionDepth)"
        try execute(savepoint.map { "SAVEPOINT \($0)" } ?? "BEGIN")
        transactionDepth += 1
        defer { transactionDepth -= 1 }

        let value: T
        do {
            value = try body()
        } catch {
            // The original error matters more than a failed ROLLBACK on a broken connection.
            try? rollBack(to: savepoint)
            throw error
        }
        if transactionStatus == .inFailedTransaction {
            try? rollBack(to: savepoint)
            throw PostgresError(
                code: .queryFailed, sqlState: .inFailedSQLTransaction,
                message:
                    "the transaction was aborted by an error that its body caught, so it was rolled back; let the error propagate, or use a nested withTransaction around the statement that may fail"
            )
        }
        try execute(savepoint.map { "RELEASE SAVEPOINT \($0)" } ?? "COMMIT")
        return value
    }

    private func rollBack(to savepoint: String?) throws {
        if let savepoint {
            try execute("ROLLBACK TO SAVEPOINT \(savepoint); RELEASE SAVEPOINT \(savepoint)")
        } else {
            try execute("ROLLBACK")
        }
    }
}
