import ByteStreams
import DarkroomAdjustments
import DarkroomImaging
import DarkroomMetadata

/// One layer's render: its adjustment data planned on the picture it starts from (the edit
/// plan, `EditorRegistry.plan`), rendered with the request `settings` make. A worker's first
/// render of an edit, its replay of a chain and `darkroom render` all come through here, so
/// the command renders exactly what a worker does.
public struct LayerRenderer: Sendable {
    public var registry: EditorRegistry
    public var settings: RenderSettings
    public var filters: FilterSource

    public init(registry: EditorRegistry = .standard, settings: RenderSettings, filters: FilterSource) {
        self.registry = registry
        self.settings = settings
        self.filters = filters
    }

    /// One layer to render.
    public struct Layer: Sendable {
        public var adjustment: EncodedAdjustment
        public var start: Picture.Start
        /// A re-render: the data is migrated to its editor's current version and planned
        /// strictly (a geometry-only Apple render is kept, never made again).
        public var isReplay: Bool

        public init(_ adjustment: EncodedAdjustment, start: Picture.Start, isReplay: Bool = false) {
            self.adjustment = adjustment
            self.start = start
            self.isReplay = isReplay
        }
    }

    /// Where a render reads and writes.
    public struct Streams {
        public var input: any ByteSource
        /// The same input again, for the HDR gain map a JPEG keeps after its image.
        public var reopen: () throws -> any ByteSource
        /// The full-size render's upload; nil for `renderRenditions`, which writes none.
        public var output: (any ObjectUpload)?
        /// Where each of `settings.renditions` goes, in order, and the path its record names;
        /// empty for a layer written without them.
        public var renditions: [(upload: any ObjectUpload, path: String)]
        /// Where spill files go.
        public var scratchDirectory: String
        /// Memory each stream's backend holds beyond the codec's buffers (`ObjectStorage.bufferedBytesPerStream`).
        public var bufferedBytesPerStream = 0
        public var isCancelled: @Sendable () -> Bool = { false }

        public init(
            input: any ByteSource, reopen: @escaping () throws -> any ByteSource, output: (any ObjectUpload)?,
            renditions: [(upload: any ObjectUpload, path: String)], scratchDirectory: String
        ) {
            self.input = input
            self.reopen = reopen
            self.output = output
            self.renditions = renditions
            self.scratchDirectory = scratchDirectory
        }
    }

    /// A rendered layer: its plan, the render, and what made it.
    public struct Rendered: Sendable {
        public var plan: EditPlan
        public var result: RenderResult
        public var provenance: RenderProvenance
    }

    /// The picture a layer starts from, read from its header: the one place this is decided.
    public static func picture(of header: SourceHeader, start: Picture.Start) -> Picture {
        // The EXIF is parsed only when the rule reads it: a render is upright, and a JPEG
        // original's recorded orientation stands in for its EXIF one.
        let readsExif = start != .render && (header.carriesOwnOrientation || start == .original(recorded: nil))
        let exif = readsExif ? MetadataReader.read(app1Payload: header.exifPayload).metadata.orientation : 1
        return Picture(
            size: header.storedSize, start: start, decoderTurnsUpright: header.carriesOwnOrientation,
            exifOrientation: Orientation(exifValue: exif))
    }

    /// `layer` planned on the picture `header` describes, its filters' LUTs attached.
    /// Throws `AdjustmentError` for data that cannot be planned, and the filter source's errors.
    public func plan(_ layer: Layer, header: SourceHeader) throws -> EditPlan {
        let options = EditOptions(leaveOutUnsupported: settings.appleGeometryOnly && !layer.isReplay)
        var plan: EditPlan
        do {
            plan = try registry.plan(
                layer.adjustment, picture: Self.picture(of: header, start: layer.start), options: options,
                upgrading: layer.isReplay)
        } catch let error as AdjustmentError {
            throw error
        } catch {
            throw AdjustmentError(.malformedData, "\(error)")
        }
        plan.operations = try filters.attach(plan.operations)
        return plan
    }

    /// Renders `layer`; the outputs appear only if the whole render succeeds. `streams.renditions`
    /// holds one upload for each of `settings.renditions`, or none.
    public func render(_ layer: Layer, streams: Streams) throws -> Rendered {
        precondition(streams.renditions.isEmpty || streams.renditions.count == settings.renditions.count)
        guard let output = streams.output else { preconditionFailure("a layer's render writes its full-size JPEG") }
        let targets = zip(settings.renditions, streams.renditions).map { RenditionUpload($0.rendition, to: $1.upload) }
        let (result, plan) = try planning(layer) { edit in
            try Renderer.render(
                request(streams), from: streams.input, to: output, renditions: targets,
                gainMapSource: settings.hdr == .keep ? streams.reopen : nil, edit: edit)
        }
        let written = zip(settings.renditions, zip(result.renditions, streams.renditions)).map {
            WrittenRendition(version: $0.version, result: $1.0, path: $1.1.path)
        }
        return Rendered(
            plan: plan, result: result,
            provenance: RenderProvenance(
                operations: plan.operations, settings: settings, renditions: written, hdr: result.hdr))
    }

    /// The renditions alone (`settings.renditions`, one upload each), scaled from a layer's
    /// stored render as it is, its gain map read again through `streams.reopen` when
    /// `settings.hdr` keeps it: what a renditions job writes. `streams.output` is not written.
    public func renderRenditions(streams: Streams) throws -> (result: RenderResult, written: [WrittenRendition]) {
        precondition(streams.renditions.count == settings.renditions.count)
        let targets = zip(settings.renditions, streams.renditions).map { RenditionUpload($0.rendition, to: $1.upload) }
        let result = try Renderer.renderRenditions(
            request(streams), from: streams.input, renditions: targets,
            gainMapSource: settings.hdr == .keep ? streams.reopen : nil)
        let written = zip(settings.renditions, zip(result.renditions, streams.renditions)).map {
            WrittenRendition(version: $0.version, result: $1.0, path: $1.1.path)
        }
        return (result, written)
    }

    /// The render's plan, without decoding a pixel, and the edit's.
    public func renderPlan(_ layer: Layer, input: any ByteSource, withRenditions: Bool, scratchDirectory: String)
        throws -> (edit: EditPlan, render: RenderPlan)
    {
        let (render, edit) = try planning(layer) { edit in
            try Renderer.plan(
                request(scratchDirectory: scratchDirectory), input: input, renditions: renditions(withRenditions),
                edit: edit)
        }
        return (edit, render)
    }

    func renditions(_ wanted: Bool) -> [Rendition] { wanted ? settings.renditions.map(\.rendition) : [] }

    /// The render's plan in words, with the gain map's when `settings.hdr` keeps it (`reopen`
    /// reads the input again for a JPEG's).
    public func explanation(
        _ layer: Layer, input: any ByteSource, reopen: @escaping () throws -> any ByteSource, withRenditions: Bool,
        scratchDirectory: String
    ) throws -> (edit: EditPlan, text: String) {
        let (text, edit) = try planning(layer) { edit in
            try Renderer.explanation(
                request(scratchDirectory: scratchDirectory), input: input, renditions: renditions(withRenditions),
                gainMapSource: settings.hdr == .keep ? reopen : nil, edit: edit)
        }
        return (edit, text)
    }

    /// Runs `body` with the renderer's `edit`, which plans `layer` once the header is read;
    /// returns what `body` returned and the plan (the renderer plans before it reads a pixel).
    private func planning<Result>(
        _ layer: Layer, _ body: ((SourceHeader) throws -> PictureEdit) throws -> Result
    ) throws -> (Result, EditPlan) {
        var planned: EditPlan?
        let result = try body { header in
            let edit = try self.plan(layer, header: header)
            planned = edit
            return edit.pictureEdit
        }
        return (result, planned!)
    }

    /// The request every render of a layer makes: output, limits and threads from `settings`;
    /// the operations come from the edit plan once the header is read.
    func request(_ streams: Streams) -> RenderRequest {
        var request = request(scratchDirectory: streams.scratchDirectory)
        request.streamBufferBytes = streams.bufferedBytesPerStream
        request.isCancelled = streams.isCancelled
        return request
    }

    func request(scratchDirectory: String) -> RenderRequest {
        var request = RenderRequest(
            operations: [], encoding: settings.encoding, huffman: settings.huffman, limits: settings.limits,
            spillDirectory: scratchDirectory,
            rewriteExif: { original, size, keepsLocation in
                let exif = try OutputExif.fitted(
                    app1Payload: original, pixelWidth: size.width, pixelHeight: size.height,
                    keepsLocation: keepsLocation)
                return (exif.payload, exif.dropped)
            },
            threads: settings.threads)
        request.memoryAdmission = settings.memoryAdmission
        return request
    }
}
