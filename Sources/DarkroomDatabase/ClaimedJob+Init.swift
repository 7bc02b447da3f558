import Foundation

extension ClaimedJob {
    /// A claimed job as `claim` returns it; for code that decides about jobs without a database
    /// (the worker's state machine and its tests).
    public init(
        id: Int64, assetID: Int64, work: JobWork, priority: Int = 0, attempts: Int = 1, maxAttempts: Int = 5,
        leaseToken: UUID = UUID(), leasedBy: String = "", leaseExpiresAt: Date = Date(), batch: String? = nil,
        runAt: Date = Date(), crashes: Int = 0
    ) {
        self.id = id
        self.assetID = assetID
        self.work = work
        self.priority = priority
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.leaseToken = leaseToken
        self.leasedBy = leasedBy
        self.leaseExpiresAt = leaseExpiresAt
        self.batch = batch
        self.runAt = runAt
        self.crashes = crashes
    }
}
