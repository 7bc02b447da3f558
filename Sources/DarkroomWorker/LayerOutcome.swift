import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging

/// What a job records of one render, in plain values: all a worker keeps of `LayerRenderer`'s
/// result, whether the render ran in this process or in the decoders' sandbox, which sends it
/// back as JSON (`DecoderSandbox`). It holds no path: the worker names its outputs itself, so a
/// hostile child can only misstate sizes and warnings, never what is recorded where.
struct LayerOutcome: Codable, Sendable, Equatable {
    struct Written: Codable, Sendable, Equatable {
        var width: Int
        var height: Int
        var bytes: Int
    }

    struct Filter: Codable, Sendable, Equatable {
        var name: String
        var version: String?
        var intensity: Float
        var sha256: String?
    }

    struct HDR: Codable, Sendable, Equatable {
        var sourceFormat: String
        var mapWidth: Int
        var mapHeight: Int
        var headroomStops: Double
    }

    /// The adjustment record the edit plan keeps (nil for a renditions job, which records none).
    var formatIdentifier: String?
    var formatVersion: String?
    var data: [UInt8]?
    /// What the edit's plan left out (`apple_geometry_only`): code and message.
    var editWarnings: [RecordedWarning]
    var renderWarnings: [RecordedWarning]
    var outputWidth: Int
    var outputHeight: Int
    var outputBytes: Int
    /// Each of `settings.renditions`, in order.
    var renditions: [Written]
    var plannedMemory: Int
    var budget: Int
    /// The provenance's parts (`RenderProvenance`): the operations' math versions and filters.
    var math: [String: Int]
    var filters: [Filter]
    var hdr: HDR?
    /// The plan in words, for a job that asked only for it (`darkroom render --explain`).
    var explanation: String? = nil

    init(_ rendered: LayerRenderer.Rendered) {
        self.init(rendered.result, operations: rendered.plan.operations)
        editWarnings = rendered.plan.warnings.map { RecordedWarning(code: $0.code, message: $0.message) }
        formatIdentifier = rendered.plan.record.formatIdentifier
        formatVersion = rendered.plan.record.formatVersion
        data = rendered.plan.record.data
    }

    /// A layer planned, not rendered: its record and what the plan left out.
    init(planned plan: EditPlan) {
        formatIdentifier = plan.record.formatIdentifier
        formatVersion = plan.record.formatVersion
        data = plan.record.data
        editWarnings = plan.warnings.map { RecordedWarning(code: $0.code, message: $0.message) }
        renderWarnings = []
        (outputWidth, outputHeight, outputBytes, plannedMemory, budget) = (0, 0, 0, 0, 0)
        renditions = []
        math = RenderMath.versions(of: plan.operations)
        filters = []
        hdr = nil
    }

    /// A renditions job's render (no record, no operations).
    init(_ result: RenderResult, operations: [ImageOperation] = []) {
        editWarnings = []
        renderWarnings = result.warnings.map(RecordedWarning.init)
        outputWidth = result.outputSize.width
        outputHeight = result.outputSize.height
        outputBytes = result.outputBytes
        renditions = result.renditions.map { Written(width: $0.size.width, height: $0.size.height, bytes: $0.bytes) }
        plannedMemory = result.plan.memory.total
        budget = result.plan.budget
        math = RenderMath.versions(of: operations)
        filters = operations.compactMap { if case .filter(let step) = $0 { step } else { nil } }.map {
            Filter(name: $0.name, version: $0.version, intensity: $0.intensity, sha256: $0.sha256)
        }
        hdr = result.hdr.map {
            HDR(
                sourceFormat: $0.sourceFormat, mapWidth: $0.mapSize.width, mapHeight: $0.mapSize.height,
                headroomStops: $0.headroomStops)
        }
    }

    var outputSize: PixelSize { PixelSize(width: outputWidth, height: outputHeight) }

    var record: EncodedAdjustment? {
        guard let formatIdentifier, let formatVersion, let data else { return nil }
        return EncodedAdjustment(formatIdentifier: formatIdentifier, formatVersion: formatVersion, data: data)
    }

    var carriedHDR: CarriedHDR? {
        hdr.map {
            CarriedHDR(
                sourceFormat: $0.sourceFormat, mapSize: PixelSize(width: $0.mapWidth, height: $0.mapHeight),
                headroomStops: $0.headroomStops)
        }
    }

    /// The renditions as written: `settings`' definitions, the paths the worker chose, and the
    /// sizes and bytes the render reports.
    func written(_ settings: [RenditionVersion], paths: [String]) -> [WrittenRendition] {
        zip(settings, zip(renditions, paths)).map { definition, written in
            WrittenRendition(
                version: definition.version,
                result: RenditionResult(
                    rendition: definition.rendition,
                    size: PixelSize(width: written.0.width, height: written.0.height), bytes: written.0.bytes),
                path: written.1)
        }
    }

    /// The record's `rendered_with`.
    func provenance(_ settings: RenderSettings, written: [WrittenRendition]) -> RenderProvenance {
        RenderProvenance(
            math: math,
            filters: filters.map {
                FilterStep(name: $0.name, version: $0.version, intensity: $0.intensity, sha256: $0.sha256)
            },
            settings: settings, renditions: written, hdr: carriedHDR)
    }
}
