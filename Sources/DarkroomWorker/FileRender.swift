import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import Foundation

/// `darkroom render`: one file, no database, rendered by the worker's `LayerRenderer` (the
/// same edit plan, orientation and EXIF rewriting), through the same streams: a local file
/// in, local files published whole or not at all out.
public struct FileRender {
    public var inputPath: String
    public var outputPath: String
    public var adjustment: EncodedAdjustment
    public var settings: RenderSettings
    /// nil: the orientation in the input's EXIF (none for a HEIF: it is decoded upright). Given,
    /// it is applied to the rows the decoder delivers.
    public var orientation: Orientation?
    public var spillDirectory: String
    /// Where each of `settings.renditions` goes, in order; empty writes none.
    public var renditionPaths: [String] = []
    public var registry: EditorRegistry = .standard
    /// The LUTs of the filters the data names (`--filter-file`); a filter without one is refused.
    public var filterFiles: [FilterFile] = []

    public init(
        inputPath: String, outputPath: String, formatIdentifier: String, formatVersion: String,
        data: [UInt8], settings: RenderSettings, orientation: Orientation? = nil,
        spillDirectory: String = NSTemporaryDirectory()
    ) {
        self.inputPath = inputPath
        self.outputPath = outputPath
        self.adjustment = EncodedAdjustment(
            formatIdentifier: formatIdentifier, formatVersion: formatVersion, data: data)
        self.settings = settings
        self.orientation = orientation
        self.spillDirectory = spillDirectory
    }

    var renderer: LayerRenderer {
        LayerRenderer(registry: registry, settings: settings, filters: .files(filterFiles))
    }

    var layer: LayerRenderer.Layer {
        LayerRenderer.Layer(adjustment, start: .original(recorded: orientation))
    }

    /// The plan, without decoding a pixel. A missing or unreadable input throws `StreamError`.
    public func plan() throws -> RenderPlan {
        try renderer.renderPlan(
            layer, input: try FileSource(path: inputPath), withRenditions: !renditionPaths.isEmpty,
            scratchDirectory: spillDirectory
        ).render
    }

    /// The plan in words, with the gain map's when `settings.hdr` keeps it (`darkroom render --explain`).
    public func explanation() throws -> (edit: EditPlan, text: String) {
        try renderer.explanation(
            layer, input: try FileSource(path: inputPath), reopen: { [inputPath] in try FileSource(path: inputPath) },
            withRenditions: !renditionPaths.isEmpty, scratchDirectory: spillDirectory)
    }

    /// Renders; the output (and renditions) appear only if the whole render succeeds.
    public func render() throws -> LayerRenderer.Rendered {
        try renderer.render(layer, streams: try streams())
    }

    /// The input, and an upload to each output: published whole when the render commits them.
    /// If one cannot begin, those begun are aborted.
    func streams() throws -> LayerRenderer.Streams {
        precondition(renditionPaths.isEmpty || renditionPaths.count == settings.renditions.count)
        let input = try FileSource(path: inputPath)
        let output = try FileUpload(finalPath: outputPath)
        var renditions: [(upload: any ObjectUpload, path: String)] = []
        do {
            for path in renditionPaths { renditions.append((try FileUpload(finalPath: path), path)) }
        } catch {
            output.abort()
            for rendition in renditions { rendition.upload.abort() }
            throw error
        }
        return LayerRenderer.Streams(
            input: input, reopen: { [inputPath] in try FileSource(path: inputPath) }, output: output,
            renditions: renditions, scratchDirectory: spillDirectory)
    }

    /// What a render wrote and met, wherever it ran: what `darkroom render` prints.
    public struct Summary: Sendable {
        /// What the edit's plan left out (`apple_geometry_only`), then what the render met.
        public var editWarnings: [RecordedWarning]
        public var renderWarnings: [RecordedWarning]
        public var outputSize: PixelSize
        public var outputBytes: Int
        public var renditions: [(size: PixelSize, bytes: Int)]
        /// The decoding child's memory, for a render made in one.
        public var childMemory: DecoderSandbox.ChildMemory?

        public init(_ rendered: LayerRenderer.Rendered) {
            self.init(LayerOutcome(rendered))
        }

        init(_ outcome: LayerOutcome) {
            editWarnings = outcome.editWarnings
            renderWarnings = outcome.renderWarnings
            outputSize = outcome.outputSize
            outputBytes = outcome.outputBytes
            renditions = outcome.renditions.map { (PixelSize(width: $0.width, height: $0.height), $0.bytes) }
        }
    }

    /// Renders in a decoding child (`DecoderSandbox`; nil: here), which reads the input and writes the
    /// outputs through this process and asks it for the filters' tables, as a worker's do. The
    /// outputs appear only if the whole render succeeds. The child's failures arrive as a
    /// `JobFailure` (its code and message), or a `SandboxViolation` when it crashed.
    public func render(in sandbox: DecoderSandbox?) throws -> Summary {
        guard let sandbox else { return Summary(try render()) }
        let streams = try streams()
        var services = services
        var measured: DecoderSandbox.ChildMemory?
        services.measured = { measured = $0 }
        var summary = Summary(
            try sandbox.render(
                sandboxJob(uploadNames: [outputPath] + renditionPaths), streams: streams, services: services))
        summary.childMemory = measured
        return summary
    }

    /// The plan in words, made in a decoding child (nil: here; `darkroom render --explain`): what the
    /// edit's plan left out, and the text.
    public func explanation(in sandbox: DecoderSandbox?) throws -> (warnings: [RecordedWarning], text: String) {
        guard let sandbox else {
            let explained = try explanation()
            return (explained.edit.warnings.map { RecordedWarning(code: $0.code, message: $0.message) }, explained.text)
        }
        var job = sandboxJob(uploadNames: [])
        job.explainOnly = true
        let streams = LayerRenderer.Streams(
            input: try FileSource(path: inputPath), reopen: { [inputPath] in try FileSource(path: inputPath) },
            output: nil, renditions: [], scratchDirectory: spillDirectory)
        let outcome = try sandbox.render(job, streams: streams, services: services)
        // What the child wrote may be made up: each line escaped, as every line from it is.
        let text = (outcome.explanation ?? "").split(separator: "\n", omittingEmptySubsequences: false)
            .map { Bounds.escaped(String($0)) }.joined(separator: "\n")
        return (outcome.editWarnings, text)
    }

    /// The child's job: this render's adjustment and settings, its input and uploads by name.
    private func sandboxJob(uploadNames: [String]) -> SandboxJob {
        SandboxJob(
            adjustment: EncodedAdjustmentMessage(
                formatIdentifier: adjustment.formatIdentifier, formatVersion: adjustment.formatVersion,
                data: Data(adjustment.data)),
            startOrientation: orientation?.rawValue ?? 0, isReplay: false, settings: settings,
            withRenditions: !renditionPaths.isEmpty, scratchDirectory: spillDirectory, bufferedBytesPerStream: 0,
            inputName: inputPath, uploadNames: uploadNames, input: nil, jobID: 0, adjustmentID: nil)
    }

    /// What this process does for the child: the filters' tables, from `filterFiles`.
    private var services: DecoderSandbox.Services {
        let files = filterFiles
        return DecoderSandbox.Services(
            table: { query in
                let step = FilterStep(name: query.name, version: query.version, sha256: query.sha256)
                guard let table = try FilterFile.load(step, operation: query.index, from: files).table else {
                    throw FilterFileError(.missing, "filter \(query.name) has no table", object: "")
                }
                return table
            }, admission: settings.memoryAdmission)
    }
}
