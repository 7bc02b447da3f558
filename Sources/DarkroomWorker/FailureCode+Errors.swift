import ByteStreams
import DarkroomAdjustments
import DarkroomImaging
import DarkroomStorage
import JPEGTurbo
import LibHeif

/// The failure code each module's own error codes are recorded under. Exhaustive switches, so
/// a new error case does not compile until it has a code.
extension FailureCode {
    init(_ error: RenderError) {
        switch error {
        case .jpeg(let jpeg): self.init(jpeg.code)
        case .heif(let heif): self.init(heif.code)
        case .cropOutOfBounds: self = .cropOutOfBounds
        case .budgetTooSmall: self = .memoryBudgetExceeded
        case .imageTooLarge: self = .imageTooLarge
        case .spill: self = .spillFailed
        case .output: self = .outputFailed
        case .cancelled: self = .renderCancelled
        }
    }

    init(_ code: JPEGError.Code) {
        switch code {
        case .io: self = .jpegIO
        case .corrupt: self = .jpegCorrupt
        case .damaged: self = .jpegDamaged
        case .unsupported: self = .jpegUnsupported
        case .misuse: self = .jpegMisuse
        case .outOfMemory: self = .jpegOutOfMemory
        }
    }

    init(_ code: HEIFError.Code) {
        switch code {
        case .io: self = .heifIO
        case .corrupt: self = .heifCorrupt
        case .damaged: self = .heifDamaged
        case .unsupported: self = .heifUnsupported
        case .tooLarge: self = .heifTooLarge
        case .outOfMemory: self = .heifOutOfMemory
        case .misuse: self = .heifMisuse
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
        }
    }

    init(_ code: StorageError.Code) {
        switch code {
        case .notConfigured: self = .storageNotConfigured
        case .unavailable: self = .storageUnavailable
        case .outsideRoot: self = .pathOutsideStorageRoot
        }
    }

    init(_ code: StreamError.Code) {
        switch code {
        case .notFound: self = .objectMissing
        case .unavailable: self = .storageUnavailable
        case .refused: self = .permissionDenied
        case .rejected: self = .storageRejected
        case .outsideStorage: self = .pathOutsideStorageRoot
        case .io: self = .storageIO
        }
    }
}
