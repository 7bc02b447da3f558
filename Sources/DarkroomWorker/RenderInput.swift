import DarkroomDatabase
import DarkroomImaging
import DarkroomMetrics
import DarkroomStorage

/// What a job's render reads, by identity: an error then names the object that is really at
/// fault and the remedy that fits it (re-import an original, render a layer again).
enum RenderInput: Sendable, Equatable, CustomStringConvertible {
    /// The imported original of an asset.
    case original(assetID: Int64, key: StorageKey)
    /// The recorded render of an adjustment, which an edit goes on top of.
    case render(adjustmentID: Int64, assetID: Int64, formatIdentifier: String, key: StorageKey)
    /// A lower layer this job rendered moments ago while replaying a chain.
    case replayedLayer(jobID: Int64, layer: Int, key: StorageKey)

    var key: StorageKey {
        switch self {
        case .original(_, let key), .render(_, _, _, let key), .replayedLayer(_, _, let key): key
        }
    }

    var description: String {
        switch self {
        case .original(let asset, _): "the original of asset \(asset)"
        case .render(let adjustment, _, _, _):
            "the render of adjustment \(adjustment) (the layer this edit goes on top of)"
        case .replayedLayer(let job, let layer, _): "layer \(layer) (rendered by job \(job) just before)"
        }
    }

    /// Whether its bytes being bad is for good: a damaged original or recorded render stays
    /// damaged; a layer this job wrote is written again by the next attempt.
    var damageIsPermanent: Bool {
        if case .replayedLayer = self { return false }
        return true
    }

    /// What an operator does about damaged bytes.
    var remedyForDamage: String {
        switch self {
        case .original:
            "delete the damaged file, re-import it from an intact copy of the photo (`darkroom import` restores a missing original, found by its SHA-256), then retry the job"
        case .render(_, let asset, let format, _):
            "render asset \(asset)'s chain again from its original (`darkroom rerender --format-identifier \(format)` does, for every asset with a layer in that format), then retry the job"
        case .replayedLayer:
            "the storage returned other bytes than were written; the job is retried"
        }
    }

    /// What an operator does when the object is not there.
    var remedyForMissing: String {
        switch self {
        case .original: "restore it and retry the job"
        case .render(_, let asset, _, _): "re-render asset \(asset)"
        case .replayedLayer: "the storage lost what was just written; the job is retried"
        }
    }

    /// The job failure code when the object is not there.
    var missingCode: FailureCode {
        switch self {
        case .original: .originalMissing
        case .render: .baseRenderMissing
        case .replayedLayer: .replayedLayerMissing
        }
    }
}

/// A render whose input was bad or could not be read: what was read, and the codec's error
/// (libjpeg's, libheif's, or the storage's under them), kept typed.
struct RenderInputError: Error, Sendable, CustomStringConvertible {
    var input: RenderInput
    var cause: CodecError

    /// The codes jobs always recorded (`jpeg_damaged`, `heif_corrupt`, ...); the message says which object.
    var code: FailureCode { FailureCode(cause) }

    var isPermanent: Bool {
        cause.isDamagedData ? input.damageIsPermanent : cause.isPermanent
    }

    var description: String {
        var text = "\(input.key): \(input) "
        text += cause.isDamagedData ? "is damaged: " : "could not be read: "
        text += cause.message
        if let offset = cause.byteOffset { text += " (at byte \(offset))" }
        if cause.isDamagedData {
            text += "; " + input.remedyForDamage
        } else if cause.code == .unsupported {
            text += "; " + cause.conversionAdvice
        }
        return text
    }
}

extension RenderInput {
    /// How the bytes read from it are counted.
    var metricsInput: WorkerMetrics.Input {
        if case .original = self { return .original }
        return .render
    }
}
