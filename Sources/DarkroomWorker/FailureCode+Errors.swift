import ByteStreams
import DarkroomAdjustments
import DarkroomImaging
import DarkroomStorage

/// The failure code each module's own error codes are recorded under, by code, never by
/// message. Exhaustive switches, so a new error code does not compile until it has a failure code.
extension FailureCode {
    init(_ error: RenderError) {
        self.init(error.code, codec: error.codecError)
    }

    /// A render's code; `.codec` by the codec's format and code (a `.codec` error always carries
    /// its `CodecError`).
    init(_ code: RenderError.Code, codec: CodecError?) {
        switch code {
        case .codec: self = codec.map(FailureCode.init) ?? .renderFailed
        case .cropOutOfBounds: self = .cropOutOfBounds
        case .invalidRotation: self = .invalidRotation
        case .filterNotLoaded: self = .filterNotLoaded
        case .memoryBudgetExceeded: self = .memoryBudgetExceeded
        case .imageTooLarge: self = .imageTooLarge
        case .spillFailed: self = .spillFailed
        case .outputFailed: self = .outputFailed
        case .cancelled: self = .renderCancelled
        }
    }

    init(_ error: CodecError) {
        switch (error.format, error.code) {
        case (.jpeg, .io): self = .jpegIO
        case (.jpeg, .corrupt): self = .jpegCorrupt
        case (.jpeg, .damaged): self = .jpegDamaged
        case (.jpeg, .unsupported): self = .jpegUnsupported
        case (.jpeg, .tooLarge): self = .jpegTooLarge
        case (.jpeg, .outOfMemory): self = .jpegOutOfMemory
        case (.jpeg, .misuse): self = .jpegMisuse
        case (.heif, .io): self = .heifIO
        case (.heif, .corrupt): self = .heifCorrupt
        case (.heif, .damaged): self = .heifDamaged
        case (.heif, .unsupported): self = .heifUnsupported
        case (.heif, .tooLarge): self = .heifTooLarge
        case (.heif, .outOfMemory): self = .heifOutOfMemory
        case (.heif, .misuse): self = .heifMisuse
        case (.webp, .io): self = .webpIO
        case (.webp, .corrupt): self = .webpCorrupt
        case (.webp, .damaged): self = .webpDamaged
        case (.webp, .unsupported): self = .webpUnsupported
        case (.webp, .tooLarge): self = .webpTooLarge
        case (.webp, .outOfMemory): self = .webpOutOfMemory
        case (.webp, .misuse): self = .webpMisuse
        }
    }

    init(_ code: AdjustmentError.Code) {
        switch code {
        case .malformedData: self = .malformedAdjustmentData
        case .unknownOperation: self = .unknownOperation
        case .invalidParameter: self = .invalidParameter
        case .unknownFormat: self = .unknownFormat
        case .unsupportedVersion: self = .unsupportedFormatVersion
        case .dataTooLarge: self = .adjustmentDataTooLarge
        case .unrepresentable: self = .operationsNotRepresentable
        case .appleAdjustmentUnsupported: self = .appleAdjustmentUnsupported
        }
    }

    init(_ code: StorageError.Code) {
        switch code {
        case .notConfigured: self = .storageNotConfigured
        case .unavailable: self = .storageUnavailable
        case .outsideRoot: self = .pathOutsideStorageRoot
        case .symlinkInPath: self = .symlinkInStoragePath
        }
    }

    init(_ code: StreamError.Code) {
        switch code {
        case .notFound: self = .objectMissing
        case .unavailable: self = .storageUnavailable
        case .refused: self = .permissionDenied
        case .rejected: self = .storageRejected
        case .outsideStorage: self = .pathOutsideStorageRoot
        case .symlinkInPath: self = .symlinkInStoragePath
        case .io: self = .storageIO
        }
    }
}
