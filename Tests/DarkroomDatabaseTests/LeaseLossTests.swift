import DarkroomDatabase
import Foundation
import Testing

@Suite("Lease losses")
struct LeaseLossTests {
    let mine = UUID()
    let expiry = Date(timeIntervalSince1970: 1_700_000_000)

    /// darkroom.lease_loss decides (LeaseAndFleetTests and JobResultTests cause each case
    /// against the server); Swift only names its words.
    @Test func theDatabaseWordsMapToLosses() {
        #expect(LeaseLoss(databaseWord: "deleted") == .deleted)
        #expect(LeaseLoss(databaseWord: "cancelled") == .cancelled)
        #expect(LeaseLoss(databaseWord: "succeeded") == .finished(.succeeded))
        #expect(LeaseLoss(databaseWord: "failed") == .finished(.failed))
        #expect(LeaseLoss(databaseWord: "queued") == .requeued)
        #expect(LeaseLoss(databaseWord: "taken_over") == .takenOver)
        #expect(LeaseLoss(databaseWord: "expired") == .expired(at: nil))
        #expect(
            LeaseLoss(databaseWord: "a word from a newer schema") == .expired(at: nil), "the lease is gone all the same"
        )
        #expect(LeaseCheck(jobID: 1, loss: nil).held)
        #expect(!LeaseCheck(jobID: 1, loss: .cancelled).held)
    }

    /// The messages people read in logs and `last_error`; code never compares them.
    @Test func lossesDescribeThemselves() {
        #expect(LeaseLoss.cancelled.description == "the job was cancelled")
        #expect(LeaseLoss.finished(.succeeded).description == "the job is now succeeded")
        #expect(LeaseLoss.takenOver.description == "the lease expired and another worker claimed the job")
        #expect(LeaseLoss.expired(at: nil).description == "the lease expired")
        #expect(LeaseLoss.expired(at: expiry).description.hasPrefix("the lease expired at 2023-11-14"))
        #expect(LeaseLoss.deleted.description == "the job no longer exists")
        let error = QueueError.leaseLost(jobID: 5, reason: .cancelled)
        #expect(
            error.code == .leaseLost
                && error.description.contains("job 5 is no longer leased to this worker (the job was cancelled)"))
    }
}
