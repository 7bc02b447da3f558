import DarkroomDatabase
import Foundation
import Testing

@Suite("Lease losses and failure codes")
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
            error.code == "lease_lost"
                && error.description.contains("job 5 is no longer leased to this worker (the job was cancelled)"))
    }

    /// Every stored code, spelled out once more: the database and operators' queries hold these
    /// strings, so changing one must be deliberate.
    @Test func failureCodesAreTheStoredStrings() {
        #expect(
            FailureCode.allCases.map(\.rawValue) == [
                "lease_expired", "crash_loop",
                "database_unavailable", "asset_not_found", "asset_changed", "internal",
                "malformed_adjustment_data", "unknown_operation", "invalid_parameter", "unknown_format",
                "unsupported_format_version", "adjustment_data_too_large", "operations_not_representable",
                "adjustment_data",
                "base_adjustment_missing", "base_render_missing",
                "storage_not_configured", "storage_unavailable", "path_outside_storage_root", "original_missing",
                "storage_io",
                "object_missing", "permission_denied", "storage_rejected", "replayed_layer_missing",
                "jpeg_io", "jpeg_corrupt", "jpeg_damaged", "jpeg_unsupported", "jpeg_misuse", "jpeg_outOfMemory",
                "heif_io", "heif_corrupt", "heif_damaged", "heif_unsupported", "heif_tooLarge", "heif_outOfMemory",
                "heif_misuse",
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
