import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomStorage
import Foundation
import ProcessSandbox

/// The frames between a worker and its decoding child. The child asks, the worker answers; the
/// child reaches no object by name (streams are numbers; the keys it is told only name them in
/// its messages) and learns no secret. An input that is a local file is not sent over the
/// channel: the child reads it through the descriptor it was started with
/// (`Sandbox.inputDescriptor`), read-only.
enum SandboxMessage: UInt8 {
    // Worker to child.
    /// The job (`SandboxJob`, JSON): sent once, first.
    case job = 1
    /// Bytes read from stream `id` (empty: its end).
    case data = 2
    /// The stream the child asked to open again (`id`).
    case opened = 3
    /// An upload committed: its byte count, 8 bytes little-endian. A file the child wrote itself
    /// is published once the child has ended.
    case committed = 4
    /// The render's memory is the child's.
    case granted = 5
    /// A filter's table (`FilterTableMessage`).
    case table = 6
    /// Instead of a job: answer `ready` once confined (a worker's check when it starts).
    case probe = 7

    // Child to worker.
    /// Read at most the 4-byte little-endian count in the payload from stream `id`.
    case read = 20
    /// Open the input again (a JPEG's gain map follows its image).
    case reopen = 21
    /// Bytes for upload `id` (0 the full-size render, 1… the renditions in order).
    case write = 22
    /// Publish upload `id`: for a file the child was given, with the bytes it wrote (8 bytes
    /// little-endian); else empty.
    case commit = 23
    case abort = 24
    /// Reserve the render's price (8 bytes little-endian) from the worker's budget.
    case reserve = 25
    /// The table of a filter (`FilterQuery`, JSON).
    case filter = 26
    /// The render is done (`LayerOutcome`, JSON); the child then exits.
    case outcome = 27
    /// The render failed (`ChildFailure`, JSON); the child then exits.
    case failed = 28
    /// The answer to `probe`: the child is confined and reads its channel.
    case ready = 29
    /// What a reading job read (`ReadingAnswer`, JSON); the child then exits.
    case reading = 30
    /// How many bytes the child read of the input it was given to read itself (8 bytes
    /// little-endian), for the worker's metrics: sent before its last word.
    case inputRead = 31

    /// The largest frame either side accepts: a write is cut to `chunkBytes`, and the largest
    /// table (65³ points) is 3.3 MB.
    static let maxPayload = 8 << 20
    /// How many streams a render may open on its input (the first and each time again).
    static let maxInputStreams = 8
    static let chunkBytes = 1 << 20
    /// What the child buffers for each stream and upload, so that a decoder's 16 KiB reads and
    /// an encoder's small writes cross the channel 1 MiB at a time (a render prices it as its
    /// streams' memory): each crossing costs two context switches and a wait. At 256 KiB a
    /// drain of six 24 MP JPEG edits switched 2 300 times, at 1 MiB 1 400 (docs/benchmarks.md).
    static let streamBufferBytes = 1 << 20
}

/// What a sandboxed render does: everything `LayerRenderer` needs except its streams, which
/// stay with the worker, and the names the failure mapping uses.
struct SandboxJob: Codable, Sendable {
    /// nil: a renditions job (the input is a stored render, scaled as it is) or a thumbnail.
    var adjustment: EncodedAdjustmentMessage?
    /// A dashboard's thumbnail instead of a job's render (no adjustment, no renditions).
    var thumbnail: ThumbnailMessage? = nil
    /// Only plan the adjustment on the input's header, and write nothing (a re-render asking
    /// whether a layer can be made again).
    var planOnly = false
    /// Only explain the render (`LayerRenderer.explanation`), and write nothing.
    var explainOnly = false
    /// Only read the input, for an import: a photo's facts or an Apple sidecar.
    var reading: SandboxReading? = nil
    /// Where the layer starts: a recorded orientation's EXIF value, 0 to read it, nil for a render.
    var startOrientation: Int?
    var isReplay: Bool
    /// How to render; its memory admission is the channel.
    var settings: RenderSettings
    /// Whether the worker gave renditions uploads (one per `settings.renditions`).
    var withRenditions: Bool
    var scratchDirectory: String
    var bufferedBytesPerStream: Int
    /// The input's storage key: the name its errors carry (`RenderInputError` matches it).
    var inputName: String
    /// The child reads the input through `Sandbox.inputDescriptor`, not over the channel.
    var inputIsInherited = false
    /// The uploads (by index) whose files the child was given to write itself, in the order of
    /// its descriptors from `Sandbox.firstOutputDescriptor`; the rest cross the channel.
    var inheritedUploads: [Int] = []
    /// Each upload's name (its key), which warnings and errors about it carry, in upload order.
    var uploadNames: [String]
    /// What the input is, for a job's failure messages; nil for a thumbnail.
    var input: InputMessage?
    var jobID: Int64
    var adjustmentID: Int64?
}

extension SandboxJob {
    /// Whether the child writes a full-size output (upload 0): a layer's render or a thumbnail.
    var writesOutput: Bool { thumbnail != nil || (adjustment != nil && !planOnly && !explainOnly) }
    /// Whether a render that ends well has committed every upload it was given: all but a plan,
    /// an explanation and a reading.
    var commitsEveryUpload: Bool { reading == nil && !planOnly && !explainOnly }
}

/// A thumbnail's settings (`Renderer.thumbnail`).
struct ThumbnailMessage: Codable, Sendable {
    var longestSide: Int
    var orientation: Int
    var quality: Int
    var memoryBudget: Int
}

struct EncodedAdjustmentMessage: Codable, Sendable {
    var formatIdentifier: String
    var formatVersion: String
    var data: Data
}

/// `RenderInput`, for the failure messages the child writes.
struct InputMessage: Codable, Sendable {
    var kind: String
    var key: String
    var assetID: Int64?
    var adjustmentID: Int64?
    var formatIdentifier: String?
    var jobID: Int64?
    var layer: Int?
}

/// A filter a plan names, as `FilterTables` looks it up.
struct FilterQuery: Codable, Sendable {
    var index: Int
    var name: String
    var version: String?
    var sha256: String?
}

/// What an import has a child read.
enum SandboxReading: String, Codable, Sendable {
    /// A photo's header and metadata (`PhotoFacts`).
    case photoFacts
    /// An Apple Photos `.AAE` sidecar (`AppleSidecar.decodeForImport`).
    case appleSidecar
}

/// What a reading job read, or why it could not: a `PhotoFactsError`'s or an
/// `AdjustmentError`'s code and message.
struct ReadingAnswer: Codable, Sendable {
    struct Refusal: Codable, Sendable {
        var code: String
        var message: String
    }

    var facts: PhotoFacts?
    var sidecar: AppleSidecar?
    var refusal: Refusal?
}

/// A job failure as the child's own mapping made it (`RenderJobRunner.failure`).
struct ChildFailure: Codable, Sendable {
    var code: String
    var message: String
    var isPermanent: Bool
}

extension InputMessage {
    init(_ input: RenderInput) {
        key = input.key.rawValue
        switch input {
        case .original(let asset, _):
            kind = "original"
            assetID = asset
        case .render(let adjustment, let asset, let format, _):
            kind = "render"
            (adjustmentID, assetID, formatIdentifier) = (adjustment, asset, format)
        case .replayedLayer(let job, let layer, _):
            kind = "replayed_layer"
            (jobID, self.layer) = (job, layer)
        }
    }

    var renderInput: RenderInput? {
        guard let key = try? StorageKey(key) else { return nil }
        switch (kind, assetID, adjustmentID, formatIdentifier, jobID, layer) {
        case ("original", let asset?, _, _, _, _): return .original(assetID: asset, key: key)
        case ("render", let asset?, let adjustment?, let format?, _, _):
            return .render(adjustmentID: adjustment, assetID: asset, formatIdentifier: format, key: key)
        case ("replayed_layer", _, _, _, let job?, let layer?):
            return .replayedLayer(jobID: job, layer: layer, key: key)
        default: return nil
        }
    }
}

/// A filter's table on the channel: its shape as JSON (4-byte length first), then its values
/// in file order as little-endian 32-bit floats.
enum FilterTableMessage {
    struct Shape: Codable {
        var kind: String
        var size: Int
        var domainMin: [Float]
        var domainMax: [Float]
        var title: String?
    }

    static func encode(_ table: ColorLookupTable) throws -> [UInt8] {
        let shape = Shape(
            kind: table.kind.rawValue, size: table.size,
            domainMin: [table.domainMin.red, table.domainMin.green, table.domainMin.blue],
            domainMax: [table.domainMax.red, table.domainMax.green, table.domainMax.blue], title: table.title)
        let json = Array(try JSONEncoder().encode(shape))
        var bytes = withUnsafeBytes(of: UInt32(json.count).littleEndian) { Array($0) } + json
        let values = table.values
        bytes.reserveCapacity(bytes.count + values.count * 4)
        for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        return bytes
    }

    /// The table again: sent by the worker, which parsed and checked it (`FilterTables`).
    static func decode(_ bytes: [UInt8]) throws -> ColorLookupTable {
        guard bytes.count >= 4 else { throw SandboxError(.protocolViolation, "a filter table without its shape") }
        let length = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
        guard length <= bytes.count - 4, (bytes.count - 4 - length) % 4 == 0 else {
            throw SandboxError(.protocolViolation, "a filter table of the wrong length")
        }
        let shape = try JSONDecoder().decode(Shape.self, from: Data(bytes[4..<(4 + length)]))
        let values = stride(from: 4 + length, to: bytes.count, by: 4).map { offset in
            Float(
                bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                    | UInt32(bytes[offset + 3]) << 24)
        }
        guard let kind = ColorLookupTable.Kind(rawValue: shape.kind), shape.domainMin.count == 3,
            shape.domainMax.count == 3
        else { throw SandboxError(.protocolViolation, "a filter table of no known shape") }
        return ColorLookupTable(
            kind: kind, size: shape.size, values: values,
            domainMin: RGBColor(red: shape.domainMin[0], green: shape.domainMin[1], blue: shape.domainMin[2]),
            domainMax: RGBColor(red: shape.domainMax[0], green: shape.domainMax[1], blue: shape.domainMax[2]),
            title: shape.title)
    }
}

extension UInt64 {
    var littleEndianBytes: [UInt8] { withUnsafeBytes(of: littleEndian) { Array($0) } }

    init?(littleEndianBytes bytes: [UInt8]) {
        guard bytes.count == 8 else { return nil }
        self = bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
