import DarkroomQueue
import Foundation
import Testing

@Suite("Lease losses and failure codes")
struct LeaseLossTests {
    let mine = UUID()
    let expiry = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func aLiveLeaseIsNoLoss() {
        #expect(LeaseLoss.judging(lease: mine, state: .running, leaseToken: mine, leaseExpiresAt: expiry, leaseExpired: false) == nil)
    }

    @Test func theRowSaysWhyTheLeaseIsGone() {
        func judge(_ state: JobState?, token: UUID? = nil, expired: Bool = false) -> LeaseLoss? {
            LeaseLoss.judging(lease: mine, state: state, leaseToken: token, leaseExpiresAt: expiry, leaseExpired: expired)
        }
        #expect(judge(nil) == .deleted)
        #expect(judge(.cancelled) == .cancelled)
        #expect(judge(.succeeded) == .finished(.succeeded))
        #expect(judge(.failed) == .finished(.failed))
        #expect(judge(.queued) == .requeued)
        #expect(judge(.running, token: UUID()) == .takenOver)
        #expect(judge(.running, token: mine, expired: true) == .expired(at: expiry))
        // The state decides before the token: a cancelled job keeps no token.
        #expect(judge(.cancelled, token: mine) == .cancelled)
    }

    @Test func heartbeatRowsMapToLosses() {
        #expect(LeaseCheck(jobID: 1, held: true, state: "running").loss == nil)
        #expect(LeaseCheck(jobID: 1, held: true, state: "running").held)
        #expect(LeaseCheck(jobID: 1, held: false, state: "cancelled").loss == .cancelled)
        #expect(LeaseCheck(jobID: 1, held: false, state: "deleted").loss == .deleted)
        #expect(LeaseCheck(jobID: 1, held: false, state: "queued").loss == .requeued)
        #expect(LeaseCheck(jobID: 1, held: false, state: "succeeded").loss == .finished(.succeeded))
        // Running under another token, or under ours past its expiry: the heartbeat cannot tell.
        #expect(LeaseCheck(jobID: 1, held: false, state: "running").loss == .expired(at: nil))
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
        #expect(error.code == "lease_lost" && error.description.contains("job 5 is no longer leased to this worker (the job was cancelled)"))
    }

    /// Every stored code, spelled out once more: the database and operators' queries hold these
    /// strings, so changing one must be deliberate.
    @Test func failureCodesAreTheStoredStrings() {
        #expect(FailureCode.allCases.map(\.rawValue) == [
            "lease_expired", "crash_loop",
            "database_unavailable", "asset_not_found", "asset_changed", "internal",
            "malformed_adjustment_data", "unknown_operation", "invalid_parameter", "unknown_format",
            "unsupported_format_version", "adjustment_data_too_large", "operations_not_representable", "adjustment_data",
            "base_adjustment_missing", "base_render_missing",
            "storage_not_configured", "storage_unavailable", "path_outside_storage_root", "original_missing", "storage_io",
            "jpeg_io", "jpeg_corrupt", "jpeg_damaged", "jpeg_unsupported", "jpeg_misuse", "jpeg_outOfMemory",
            "crop_out_of_bounds", "memory_budget_exceeded", "image_too_large", "spill_failed", "output_failed",
            "render_cancelled", "render_failed",
        ])
    }

    @Test func aFailureKeepsItsCauseOutsideEquality() {
        struct Underlying: Error {}
        let plain = JobFailure.transient(code: .storageIO, message: "no space left on device")
        let caused = JobFailure.transient(code: .storageIO, message: "no space left on device", cause: Underlying())
        #expect(plain == caused && plain.hashValue == caused.hashValue)
        #expect(caused.cause is Underlying)
        #expect(caused.description == "storage_io: no space left on device")
    }
}
