import DarkroomDatabase

/// Why a job attempt failed. Permanent failures (a corrupt JPEG, an unknown adjustment format)
/// are not retried; transient ones (a full disk, a lost connection) are, with backoff.
public struct JobFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Recorded in the job's error history; code decides on it, never on `message`.
    public var code: FailureCode
    /// What happened and, where it helps, what to do; recorded beside the code.
    public var message: String
    public var isPermanent: Bool
    /// The error underneath (a `RenderError`, a `StorageError`, a `PostgresError`, …) for logs
    /// and callers that need its details. Not recorded, and not part of equality.
    public var cause: (any Error & Sendable)?

    public init(code: FailureCode, message: String, isPermanent: Bool, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.isPermanent = isPermanent
        self.cause = cause
    }

    public static func permanent(code: FailureCode, message: String, cause: (any Error & Sendable)? = nil) -> JobFailure
    {
        JobFailure(code: code, message: message, isPermanent: true, cause: cause)
    }

    public static func transient(code: FailureCode, message: String, cause: (any Error & Sendable)? = nil) -> JobFailure
    {
        JobFailure(code: code, message: message, isPermanent: false, cause: cause)
    }

    public var description: String { "\(code): \(message)" }

    /// What the queue records of it.
    public var recorded: AttemptFailure {
        AttemptFailure(code: code.rawValue, message: message, isPermanent: isPermanent)
    }

    public static func == (lhs: JobFailure, rhs: JobFailure) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.isPermanent == rhs.isPermanent
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(isPermanent)
    }
}

/// Every code a failed attempt is recorded with (`darkroom.jobs.errors[].code` and the prefix
/// of `last_error`): the worker's, and each module's errors mapped at the worker's edge
/// (`FailureCode+Errors.swift`). The raw values are what the database holds and operators
/// query, so they never change; a new failure gets a new case. One spelling: snake_case
/// (migration 22 rewrote the three older camelCase ones).
public enum FailureCode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    // Written by the queue itself (`darkroom.rescue_expired_leases`).
    /// The worker stopped heartbeating (killed, out of memory, crashed); the job went back.
    case leaseExpired = "lease_expired"
    /// The job's workers died `crash_limit` times in a row; it was parked as failed.
    case crashLoop = "crash_loop"

    // The worker around the render.
    case databaseUnavailable = "database_unavailable"
    case assetNotFound = "asset_not_found"
    /// The asset's current adjustment changed while the job ran (`QueueError.Code.assetChanged`,
    /// same spelling); it runs again on the new one.
    case assetChanged = "asset_changed"
    /// An error nobody classified: a bug to report.
    case internalError = "internal"

    // Adjustment data (`AdjustmentError.Code` in DarkroomAdjustments).
    case malformedAdjustmentData = "malformed_adjustment_data"
    case unknownOperation = "unknown_operation"
    case invalidParameter = "invalid_parameter"
    case unknownFormat = "unknown_format"
    case unsupportedFormatVersion = "unsupported_format_version"
    case adjustmentDataTooLarge = "adjustment_data_too_large"
    case operationsNotRepresentable = "operations_not_representable"
    /// Apple Photos adjustments darkroom cannot reproduce, without geometry-only allowed.
    case appleAdjustmentUnsupported = "apple_adjustment_unsupported"
    /// An editor threw something other than an `AdjustmentError`.
    case adjustmentData = "adjustment_data"
    /// A layer the edit or the replayed chain needs is not in the asset's history.
    case baseAdjustmentMissing = "base_adjustment_missing"
    /// The rendered file of the layer an edit goes on top of is gone.
    case baseRenderMissing = "base_render_missing"

    // The storage (`StorageError.Code` in DarkroomWorker, `StreamError.Code` in ByteStreams).
    case storageNotConfigured = "storage_not_configured"
    case storageUnavailable = "storage_unavailable"
    case pathOutsideStorageRoot = "path_outside_storage_root"
    /// A stored path goes through a symlink under the storage root, which is never followed.
    case symlinkInStoragePath = "symlink_in_storage_path"
    case originalMissing = "original_missing"
    case storageIO = "storage_io"
    /// An object the storage does not have (not an original or a base render: those have their own).
    case objectMissing = "object_missing"
    case permissionDenied = "permission_denied"
    /// The object store refused the credentials or the request (HTTP 403).
    case storageRejected = "storage_rejected"
    /// A layer this job replayed was gone before the next layer read it back.
    case replayedLayerMissing = "replayed_layer_missing"

    // Filters: the `.cube` LUTs a filter operation names (`CubeError.Code` in DarkroomAdjustments).
    /// The filter's LUT object is not in the storage, or the filter version is not in `darkroom.filters`.
    case filterMissing = "filter_missing"
    /// The LUT's bytes no longer have the SHA-256 recorded when the version was added.
    case filterHashMismatch = "filter_hash_mismatch"
    /// The stored LUT is not a `.cube` file darkroom reads.
    case filterUnreadable = "filter_unreadable"
    /// A filter operation reached the renderer without its LUT (a bug in the worker).
    case filterNotLoaded = "filter_not_loaded"

    // Rendering (`RenderError.Code` in DarkroomImaging, same spelling; a `CodecError` is its
    // format + `_` + its code).
    case jpegIO = "jpeg_io"
    case jpegCorrupt = "jpeg_corrupt"
    case jpegDamaged = "jpeg_damaged"
    case jpegUnsupported = "jpeg_unsupported"
    case jpegMisuse = "jpeg_misuse"
    case jpegOutOfMemory = "jpeg_out_of_memory"
    /// No JPEG limit says this today; here so every codec error has its code.
    case jpegTooLarge = "jpeg_too_large"
    // HEIF and AVIF inputs.
    case heifIO = "heif_io"
    case heifCorrupt = "heif_corrupt"
    case heifDamaged = "heif_damaged"
    case heifUnsupported = "heif_unsupported"
    /// Wider or taller than darkroom reads (libheif's limit on the `ispe` box).
    case heifTooLarge = "heif_too_large"
    case heifOutOfMemory = "heif_out_of_memory"
    case heifMisuse = "heif_misuse"
    // WebP renditions (darkroom reads no WebP: only its encoder can fail).
    case webpIO = "webp_io"
    case webpCorrupt = "webp_corrupt"
    case webpDamaged = "webp_damaged"
    case webpUnsupported = "webp_unsupported"
    case webpTooLarge = "webp_too_large"
    case webpOutOfMemory = "webp_out_of_memory"
    case webpMisuse = "webp_misuse"
    case cropOutOfBounds = "crop_out_of_bounds"
    case invalidRotation = "invalid_rotation"
    case memoryBudgetExceeded = "memory_budget_exceeded"
    case imageTooLarge = "image_too_large"
    case spillFailed = "spill_failed"
    case outputFailed = "output_failed"
    case renderCancelled = "render_cancelled"
    /// The renderer threw something other than a `RenderError`.
    case renderFailed = "render_failed"
    // The decoders' sandbox (`DecoderSandbox`): what happened to the child, never what it said.
    /// The child decoding the input crashed (a signal): the input is taken to be hostile.
    case decoderCrashed = "decoder_crashed"
    /// The child made a system call its seccomp filter forbids: the input is taken to be hostile.
    case decoderForbiddenCall = "decoder_forbidden_call"
    /// The child broke the channel's rules or could not be started or confined.
    case sandboxFailed = "sandbox_failed"

    public var description: String { rawValue }
}

extension JobAttemptError {
    /// `code` as this build knows it, `nil` for a code it does not.
    public var failureCode: FailureCode? { FailureCode(rawValue: code) }
}
