import DarkroomDatabase
import DarkroomWorker
import Testing

/// The worker's failure codes: it owns them and maps each module's errors to them at its edge;
/// the database stores the code it is given.
@Suite("Failure codes")
struct FailureCodeTests {
    /// Every stored code, spelled out once more: the database and operators' queries hold these
    /// strings, so changing one must be deliberate (and needs a migration for the rows that
    /// hold the old spelling, as 0022 was for the camelCase ones).
    @Test func failureCodesAreTheStoredStrings() {
        #expect(
            FailureCode.allCases.map(\.rawValue) == [
                "lease_expired", "crash_loop",
                "database_unavailable", "asset_not_found", "asset_changed", "internal",
                "malformed_adjustment_data", "unknown_operation", "invalid_parameter", "unknown_format",
                "unsupported_format_version", "adjustment_data_too_large", "operations_not_representable",
                "apple_adjustment_unsupported",
                "adjustment_data",
                "base_adjustment_missing", "base_render_missing",
                "storage_not_configured", "storage_unavailable", "path_outside_storage_root", "symlink_in_storage_path",
                "original_missing",
                "storage_io",
                "object_missing", "permission_denied", "storage_rejected", "replayed_layer_missing",
                "filter_missing", "filter_hash_mismatch", "filter_unreadable", "filter_not_loaded",
                "jpeg_io", "jpeg_corrupt", "jpeg_damaged", "jpeg_unsupported", "jpeg_misuse", "jpeg_out_of_memory",
                "jpeg_too_large",
                "heif_io", "heif_corrupt", "heif_damaged", "heif_unsupported", "heif_too_large", "heif_out_of_memory",
                "heif_misuse",
                "webp_io", "webp_corrupt", "webp_damaged", "webp_unsupported", "webp_too_large", "webp_out_of_memory",
                "webp_misuse",
                "crop_out_of_bounds", "invalid_rotation", "memory_budget_exceeded", "image_too_large", "spill_failed",
                "output_failed",
                "render_cancelled", "render_failed",
                "decoder_crashed", "decoder_forbidden_call", "sandbox_failed",
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

    /// What the queue records of a failure: its code's stored spelling, its message, its judgement.
    @Test func aFailureIsRecordedUnderItsStoredCode() {
        let failure = JobFailure.permanent(code: .heifTooLarge, message: "100000x100000", cause: nil)
        #expect(failure.recorded == .permanent(code: "heif_too_large", message: "100000x100000"))
    }
}
