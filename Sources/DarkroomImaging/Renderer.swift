import ByteStreams
import GainMaps
import JPEGTurbo
import LibHeif

/// One render: the operations to apply and how. Where the bytes come from and where they go
/// are streams handed to `Renderer.render`; imaging never opens a file of its own (spills
/// aside, which are scratch).
public struct RenderRequest: Sendable {
    public var operations: [ImageOperation]
    public var encoding: OutputEncoding
    public var huffman: RenderPlanner.HuffmanOptimisation
    public var limits: RenderLimits
    /// Where a spill file may go (the storage's scratch folder, or TMPDIR).
    public var spillDirectory: String
    /// Builds the output's EXIF (APP1 payload) from the original's and the new size, with what
    /// was left out of the original's to fit one APP1 segment (`RenderWarning.exifShortened`);
    /// without the GPS directory when `keepsLocation` is false (a `no-location` rendition); nil
    /// writes none. Thrown errors become warnings: metadata never fails a render.
    public var rewriteExif:
        @Sendable (_ original: [UInt8], _ outputSize: PixelSize, _ keepsLocation: Bool) throws -> (
            payload: [UInt8], leftOut: [String]
        )?
    public var keepICCProfile: Bool
    /// Longest side of the display-size JPEG (PhotoKit's displaySizeImage), the built-in
    /// rendition `display`: the same render, scaled.
    public static let defaultDisplayLongestSide = 2048
    /// From a thumbnail to the largest side a JPEG can have.
    public static let displayLongestSides = 16...65_500
    /// Memory each stream's backend holds beyond the codec's own buffers (a read-ahead, an
    /// upload part), counted in the budget. Local files hold none.
    public var streamBufferBytes: Int = 0
    /// Checked between strips: returning true stops the render with `RenderError.cancelled`
    /// and leaves no output.
    public var isCancelled: @Sendable () -> Bool = { false }
    /// Decodes a JPEG at this many eighths of its stored size (libjpeg's DCT scaling, 1…8): a
    /// thumbnail reads a large photo with an eighth of its pixels per side, in strips as ever.
    /// The operations and the output then work on the scaled image. (A HEIF decodes whole.)
    public var decodeScaleEighths: Int = 8
    /// 2: the JPEG encoder runs on a second thread. A worker running as many jobs as
    /// there are cores uses 1; a lone render uses 2.
    public var threads: Int
    /// Shares `limits.memoryBudget` with other renders: the render reserves its plan's price
    /// here before it allocates its strips, waiting while others hold the memory. nil: the
    /// render has the budget to itself.
    public var memoryAdmission: (any MemoryAdmission)? = nil

    public init(
        operations: [ImageOperation], encoding: OutputEncoding = OutputEncoding(quality: OutputEncoding.defaultQuality),
        huffman: RenderPlanner.HuffmanOptimisation = .off, limits: RenderLimits = RenderLimits(),
        spillDirectory: String,
        rewriteExif: @escaping @Sendable ([UInt8], PixelSize, Bool) throws -> (payload: [UInt8], leftOut: [String])? = {
            _, _, _ in nil
        },
        keepICCProfile: Bool = true, threads: Int = 1
    ) {
        self.operations = operations
        self.encoding = encoding
        self.huffman = huffman
        self.limits = limits
        self.spillDirectory = spillDirectory
        self.rewriteExif = rewriteExif
        self.keepICCProfile = keepICCProfile
        self.threads = threads
    }
}

public struct RenderResult: Sendable {
    public var plan: RenderPlan
    public var outputSize: PixelSize
    public var outputBytes: Int
    /// Each rendition written, in the order asked.
    public var renditions: [RenditionResult] = []
    /// The display copy's, when it was among them.
    public var displaySize: PixelSize? { display?.size }
    public var displayBytes: Int? { display?.bytes }
    var display: RenditionResult? { renditions.first { $0.rendition.name == Rendition.displayName } }
    /// Things that went wrong without spoiling the pixels (an input without its EOI marker,
    /// unreadable EXIF, ...).
    public var warnings: [RenderWarning]
    /// The HDR gain map the output (and its display copy) carries; nil for standard range.
    public var hdr: CarriedHDR? = nil
}

/// What a render's HDR gain map is: where it came from and what it now is.
public struct CarriedHDR: Sendable, Equatable {
    /// The original's gain-map format: "apple", "hdrgm" (Ultra HDR, Adobe) or "iso_21496_1".
    public var sourceFormat: String
    /// The rendered map's size (the output's geometry at the map's resolution).
    public var mapSize: PixelSize
    /// log2 of the headroom the map reaches (the stops above SDR white a display may show).
    public var headroomStops: Double

    public init(sourceFormat: String, mapSize: PixelSize, headroomStops: Double) {
        self.sourceFormat = sourceFormat
        self.mapSize = mapSize
        self.headroomStops = headroomStops
    }
}

public enum Renderer {
    /// Reads the header from `input` and plans, without decoding pixels, with `renditions`
    /// written beside the output. `orientation` picks the orientation to apply from the header
    /// (the EXIF one, or a given one).
    public static func plan(
        _ request: RenderRequest, input: any ByteSource, renditions: [Rendition] = [],
        orientation: (SourceHeader) throws -> Orientation
    ) throws -> RenderPlan {
        try plan(request, input: input, renditions: renditions) { header in
            PictureEdit(operations: request.operations, orientation: try orientation(header))
        }
    }

    /// As above, with the operations too decided from the header (`edit` replaces the request's).
    public static func plan(
        _ request: RenderRequest, input: any ByteSource, renditions: [Rendition],
        edit: (SourceHeader) throws -> PictureEdit
    ) throws -> RenderPlan {
        let decoder = try openDecoder(input, request: request)
        let (request, turn) = try request.applying(edit(decoder.header))
        return try plan(request, header: decoder.header, orientation: turn, renditions: renditions)
    }

    /// Renders what `input` holds into `output`, and each of `renditions` into its upload, from
    /// the same strips. Every upload is committed only after every file is complete; on any
    /// failure (damaged input, a stream error, cancellation) all are aborted, so nothing is
    /// published. `orientation` is applied to the picture: a JPEG's stored pixels, a HEIF's
    /// displayed image (after its own `irot`, `imir` and `clap`).
    public static func render(
        _ request: RenderRequest, from input: any ByteSource, to output: any ObjectUpload,
        renditions: [RenditionUpload] = [], gainMapSource: (() throws -> any ByteSource)? = nil,
        orientation: Orientation
    ) throws -> RenderResult {
        try render(request, from: input, to: output, renditions: renditions, gainMapSource: gainMapSource) { _ in
            orientation
        }
    }

    /// As above, with the orientation picked from the header (its EXIF orientation).
    /// `gainMapSource` opens the same input again, for the HDR gain map a JPEG keeps after its own
    /// image (`GainMapCarry`; a HEIF's comes from `input`); the output then carries the map. nil
    /// renders standard range.
    public static func render(
        _ request: RenderRequest, from input: any ByteSource, to output: any ObjectUpload,
        renditions: [RenditionUpload] = [], gainMapSource: (() throws -> any ByteSource)? = nil,
        orientation: (SourceHeader) throws -> Orientation
    ) throws -> RenderResult {
        try render(request, from: input, to: output, renditions: renditions, gainMapSource: gainMapSource) { header in
            PictureEdit(operations: request.operations, orientation: try orientation(header))
        }
    }

    /// As above, with the operations too decided from the header: `edit` gives what to apply to
    /// the picture once its header is read (an edit planned on the picture's size), replacing
    /// the request's operations.
    public static func render(
        _ request: RenderRequest, from input: any ByteSource, to output: any ObjectUpload,
        renditions: [RenditionUpload], gainMapSource: (() throws -> any ByteSource)? = nil,
        edit: (SourceHeader) throws -> PictureEdit
    ) throws -> RenderResult {
        try render(request, from: input, into: output, renditions: renditions, gainMapSource: gainMapSource, edit: edit)
    }

    /// A small upright JPEG of the object `open` reads (twice: once for its header), decoded at
    /// the least DCT scale whose longest side still reaches `longestSide` (so it comes out
    /// between that and twice that), turned by `orientation`: the dashboard's thumbnails.
    public static func thumbnail(
        _ request: RenderRequest, longestSide: Int, orientation: Orientation, open: () throws -> any ByteSource,
        to output: any ObjectUpload
    ) throws -> RenderResult {
        var request = request
        let stored = try plan(request, input: try open()) { _ in .up }.geometry.storedSize
        request.decodeScaleEighths = decodeScaleEighths(toReach: longestSide, from: stored)
        return try render(request, from: try open(), to: output, orientation: orientation)
    }

    /// The renditions alone, scaled from `input` as it is (a layer's stored render: no edit, no
    /// turn), its gain map carried from `gainMapSource`; no full-size output is encoded
    /// (`outputBytes` is 0). Every upload commits only when every file is complete.
    public static func renderRenditions(
        _ request: RenderRequest, from input: any ByteSource, renditions: [RenditionUpload],
        gainMapSource: (() throws -> any ByteSource)? = nil
    ) throws -> RenderResult {
        try render(request, from: input, into: nil, renditions: renditions, gainMapSource: gainMapSource) { _ in
            PictureEdit(operations: [], orientation: .up)
        }
    }

    private static func render(
        _ request: RenderRequest, from input: any ByteSource, into output: (any ObjectUpload)?,
        renditions: [RenditionUpload], gainMapSource: (() throws -> any ByteSource)?,
        edit: (SourceHeader) throws -> PictureEdit
    ) throws -> RenderResult {
        // Held until every upload is committed or aborted: an upload's buffer is priced too.
        var reservation: MemoryReservation?
        defer { if let reservation { request.memoryAdmission?.release(reservation) } }
        do {
            let result = try encode(
                request, from: input, to: output, renditions: renditions, gainMapSource: gainMapSource, edit: edit
            ) { price in
                reservation = try request.memoryAdmission?.reserve(price, isCancelled: request.isCancelled)
            }
            let bytes = try output.map(publish) ?? 0
            var written: [RenditionResult] = []
            for (target, planned) in zip(renditions, result.plan.renditions) {
                written.append(
                    RenditionResult(rendition: target.rendition, size: planned.size, bytes: try publish(target.upload)))
            }
            return RenderResult(
                plan: result.plan, outputSize: result.plan.geometry.outputSize, outputBytes: bytes,
                renditions: written, warnings: result.warnings, hdr: result.hdr)
        } catch {
            output?.abort()
            for target in renditions { target.upload.abort() }
            throw error
        }
    }

    /// Decodes, runs the strips and finishes every encoder; commits nothing. With a gain map, the
    /// map is loaded and rendered first, the JPEGs that carry it wait in scratch files, then each
    /// is joined to its map on the way out. `admit` gets the render's price once everything is
    /// planned, before the strips (and the map's render) allocate.
    static func encode(
        _ request: RenderRequest, from input: any ByteSource, to output: (any ByteSink)?,
        renditions targets: [RenditionUpload] = [], gainMapSource: (() throws -> any ByteSource)? = nil,
        edit: (SourceHeader) throws -> PictureEdit, admit: (_ price: Int) throws -> Void = { _ in }
    ) throws -> (plan: RenderPlan, warnings: [RenderWarning], hdr: CarriedHDR?) {
        var warnings: [RenderWarning] = []
        let decoder = try openDecoder(input, request: request)
        let (request, turn) = try request.applying(edit(decoder.header))
        var carry: GainMapCarry?
        if let gainMapSource {
            do {
                carry = try GainMapCarry.load(
                    from: decoder, reopen: gainMapSource, maxBytes: GainMapCarry.maxFileBytes(request.limits))
            } catch {
                warnings.append(.gainMapDropped(reason: error.reason))
            }
        }
        let renditions = targets.map(\.rendition)
        var plan = try plan(request, header: decoder.header, orientation: turn, renditions: renditions)
        var mapPlan: GainMapPlan?
        if let loaded = carry {
            let planned = try planWithGainMap(
                request, header: decoder.header, orientation: turn, renditions: renditions, carry: loaded, plan: plan)
            (plan, mapPlan) = (planned.plan, planned.map)
            warnings += planned.warnings
            if planned.map == nil { carry = nil }
        }
        // Only the header (a HEIF's whole file) and a map's samples are held yet; the price counts them.
        try admit(RenderPlanner.admissionPrice(plan, gainMap: mapPlan.map { ($0.plan, $0.held) }))
        var map: RenderedGainMap?
        if let rendered = try renderGainMapFirst(
            &carry, plan: mapPlan, request: request, header: decoder.header, orientation: turn,
            renditions: renditions, warnings: &warnings)
        {
            (map, plan) = (rendered.map, rendered.plan)
        }
        // What carries the map waits in scratch until it is joined.
        func sink(_ upload: any ByteSink, joins: Bool) throws -> any ByteSink {
            guard map != nil, joins else { return upload }
            return try ScratchSink(directory: request.spillDirectory, name: upload.objectName)
        }
        let primarySink = try output.map { try sink($0, joins: true) }
        // An AVIF codes its map itself; a JPEG's is joined to it afterwards.
        let renditionSinks = try targets.map {
            try sink($0.upload, joins: $0.rendition.joinsGainMap && $0.rendition.format == .jpeg)
        }
        let encoders = try startEncoders(
            request, decoder: decoder, plan: plan, primary: primarySink, renditions: renditionSinks, gainMap: map,
            input: input, warnings: &warnings)
        try StripPipeline(
            plan: plan, decoder: decoder.rows, encoder: encoders.primary, spillDirectory: request.spillDirectory,
            threads: request.threads, renditions: encoders.renditions, isCancelled: request.isCancelled
        ).run()
        try wrap {
            // Decodes what is left, so damage below the last needed row still fails the render,
            // and judges how the input ended before any output is finished.
            try decoder.finish()
            try encoders.primary?.finish()
        }
        try encoders.renditions?.finish()
        // The bytes after a multi-picture JPEG's image are the images its MPF index declares
        // (kept as a gain map, or left out as every viewer leaves them): expected, not stray.
        warnings =
            decoder.warnings.filter { !(decoder.header.declaresFollowingImages && $0.code == "jpeg.trailing_bytes") }
            + warnings
        guard let map else { return (plan, warnings, nil) }
        if let output, let primary = primarySink as? ScratchSink {
            try GainMapJoin.write(primary, map: map.jpeg, metadata: map.metadata, to: output, warnings: &warnings)
        }
        for (target, held) in zip(targets, renditionSinks) {
            guard let scratch = held as? ScratchSink else { continue }
            guard case .jpeg(let jpeg) = map.renditions[target.rendition.name] else {
                preconditionFailure("a JPEG rendition waits for a map that was not rendered as a JPEG")
            }
            try GainMapJoin.write(scratch, map: jpeg, metadata: map.metadata, to: target.upload, warnings: &warnings)
        }
        let dropped = warnings.contains { if case .gainMapDropped = $0 { true } else { false } }
        let hdr = CarriedHDR(
            sourceFormat: map.kind.rawValue, mapSize: map.size,
            headroomStops: max(map.metadata.alternateHeadroom, map.metadata.baseHeadroom))
        return (plan, warnings, dropped ? nil : hdr)
    }

    /// Starts the decoder and the encoders (each rendition's with its downscaler), each with its
    /// metadata written, before the first row.
    static func startEncoders(
        _ request: RenderRequest, decoder: SourceDecoder, plan: RenderPlan, primary: (any ByteSink)?,
        renditions sinks: [any ByteSink], gainMap: RenderedGainMap? = nil, input: any ByteSource,
        warnings: inout [RenderWarning]
    ) throws -> (primary: JPEGEncoder?, renditions: RenditionFan?) {
        let size = plan.geometry.outputSize
        let encoder = try primary.map { sink in try wrap { try JPEGEncoder(sink: sink) } }
        var encoding = request.encoding.jpeg
        encoding.optimizeCoding = plan.optimizeCoding
        try wrap {
            let decoded = try decoder.start(scaleEighths: request.decodeScaleEighths, rowsPerRead: plan.decodeRows)
            guard decoded == plan.geometry.storedSize else {
                throw decoder.misuse(
                    "the decoder delivers \(decoded), not the planned \(plan.geometry.storedSize)",
                    objectName: input.objectName)
            }
            try encoder?.start(width: size.width, height: size.height, encoding: encoding)
        }
        let profile = OutputColorProfile(for: decoder.header)
        if let warning = profile.warning { warnings.append(warning) }
        if let encoder {
            try writeMetadata(
                to: encoder, size: size, request: request, header: decoder.header, profile: profile.iccProfile,
                warnings: &warnings)
        }
        guard !sinks.isEmpty else { return (encoder, nil) }
        let writers = try zip(plan.renditions, sinks).map { planned, sink in
            try startRendition(
                planned, sink: sink, request: request, header: decoder.header, profile: profile.iccProfile,
                gainMap: gainMap, optimizeCoding: plan.optimizeCoding, warnings: &warnings)
        }
        return (encoder, RenditionFan(output: size, sizes: plan.renditions.map(\.size), writers: writers))
    }

    /// `plan`'s words, and with `gainMapSource` those of the original's gain map, which a render
    /// renders first: its own plan, or why it would be dropped. The map is loaded (a HEIF's
    /// decoded, a JPEG's read again), not rendered; the image's render then leaves room for the
    /// map's JPEGs beside its own buffers.
    public static func explanation(
        _ request: RenderRequest, input: any ByteSource, renditions: [Rendition] = [],
        gainMapSource: (() throws -> any ByteSource)?, orientation: (SourceHeader) throws -> Orientation
    ) throws -> String {
        try explanation(request, input: input, renditions: renditions, gainMapSource: gainMapSource) { header in
            PictureEdit(operations: request.operations, orientation: try orientation(header))
        }
    }

    /// As above, with the operations too decided from the header (`edit` replaces the request's).
    public static func explanation(
        _ request: RenderRequest, input: any ByteSource, renditions: [Rendition],
        gainMapSource: (() throws -> any ByteSource)?, edit: (SourceHeader) throws -> PictureEdit
    ) throws -> String {
        let decoder = try openDecoder(input, request: request)
        let (request, turn) = try request.applying(edit(decoder.header))
        let plan = try plan(request, header: decoder.header, orientation: turn, renditions: renditions)
        guard let gainMapSource else { return plan.description }
        let carry: GainMapCarry
        do {
            guard
                let loaded = try GainMapCarry.load(
                    from: decoder, reopen: gainMapSource, maxBytes: GainMapCarry.maxFileBytes(request.limits))
            else { return plan.description }
            carry = loaded
        } catch {
            return plan.description + "\n\ngain map   dropped: \(error.reason)"
        }
        let planned = try planWithGainMap(
            request, header: decoder.header, orientation: turn, renditions: renditions, carry: carry, plan: plan)
        guard let map = planned.map else {
            return planned.plan.description + "\n\ngain map   dropped: \(planned.warnings.map(\.message).joined())"
        }
        let channels = carry.samples.channels == 1 ? "one channel" : "three channels"
        return planned.plan.description + "\n\n"
            + "gain map   \(carry.kind.rawValue), \(carry.size), \(channels), rendered first; the image's render "
            + "then holds its JPEGs and the AVIF renditions' maps (at most \(ByteCount.format(map.held)))\n"
            + map.plan.description
    }

    /// The image's plan and its gain map's, as a render makes them: the map's own, then the
    /// image's again when AVIF renditions code the map beside their picture. When their coders do
    /// not fit, the AVIF renditions are standard range and the rest carry the map; a map that
    /// cannot be carried at all is nil, and the image's `plan` stands. Each with its warning.
    static func planWithGainMap(
        _ request: RenderRequest, header: SourceHeader, orientation: Orientation, renditions: [Rendition],
        carry: GainMapCarry, plan: RenderPlan
    ) throws -> (plan: RenderPlan, map: GainMapPlan?, warnings: [RenderWarning]) {
        do {
            let map = try planGainMap(carry, request: request, header: header, orientation: orientation, plan: plan)
            guard !map.renditionMaps.isEmpty else { return (plan, map, []) }
            do {
                let withMaps = try Self.plan(
                    request, header: header, orientation: orientation, renditions: renditions,
                    renditionMaps: map.renditionMaps)
                return (withMaps, map, [])
            } catch let error as RenderError where error.code == .memoryBudgetExceeded {
                let needed = ByteCount.format(error.bytesNeeded ?? 0)
                let budget = ByteCount.format(request.limits.memoryBudget)
                let leftOut = map.renditionMaps.keys.sorted().map {
                    RenderWarning.renditionGainMapLeftOut(
                        rendition: $0, reason: "coding the map into it needs \(needed) of the \(budget) budget")
                }
                let jpegOnly = try planGainMap(
                    carry, request: request, header: header, orientation: orientation, plan: plan,
                    codingAVIFMaps: false)
                return (plan, jpegOnly, leftOut)
            }
        } catch let drop as GainMapCarry.Drop {
            return (plan, nil, [.gainMapDropped(reason: drop.reason)])
        }
    }

    /// EXIF (rewritten for `size`) and the ICC profile, before the first row.
    static func writeMetadata(
        to encoder: JPEGEncoder, size: PixelSize, request: RenderRequest, header: SourceHeader,
        profile: [UInt8]?, warnings: inout [RenderWarning]
    ) throws {
        if let exif = exif(for: size, request: request, header: header, keepsLocation: true, warnings: &warnings) {
            try wrap { try encoder.writeMarker(app: 1, payload: exif) }
        }
        if request.keepICCProfile, let profile {
            try wrap { try encoder.writeICCProfile(profile) }
        }
    }

    /// The output's EXIF as an APP1 payload (`Exif\0\0` + TIFF), or nil; what went wrong is
    /// said once in `warnings` (every rendition meets the same).
    static func exif(
        for size: PixelSize, request: RenderRequest, header: SourceHeader, keepsLocation: Bool,
        warnings: inout [RenderWarning]
    ) -> [UInt8]? {
        guard let original = header.exifPayload else { return nil }
        do {
            guard let exif = try request.rewriteExif(original, size, keepsLocation) else { return nil }
            let warning = RenderWarning.exifShortened(reason: exif.leftOut.joined(separator: ", "))
            if !exif.leftOut.isEmpty, !warnings.contains(warning) { warnings.append(warning) }
            return exif.payload
        } catch {
            let warning = RenderWarning.exifNotCopied(reason: "\(error)")
            if !warnings.contains(warning) { warnings.append(warning) }
            return nil
        }
    }

    /// `holding`: bytes the render keeps beside its own buffers (a rendered gain map), taken
    /// from its budget.
    static func plan(
        _ request: RenderRequest, header: SourceHeader, orientation: Orientation, renditions: [Rendition],
        renditionMaps: [String: RenditionMapShape] = [:], holding: Int = 0
    ) throws -> RenderPlan {
        let placement = header.placement(scaleEighths: request.decodeScaleEighths)
        let oriented = placement.followed(by: orientation)
        let geometry = try RenderGeometry(
            storedSize: placement.decodedSize, orientation: oriented.orientation, window: oriented.window,
            operations: request.operations)
        var limits = request.limits
        limits.memoryBudget -= holding
        var plan = try RenderPlanner.plan(
            source: header, geometry: geometry, encoding: request.encoding,
            huffman: request.huffman, limits: limits, renditions: renditions, renditionMaps: renditionMaps,
            streamBufferBytes: request.streamBufferBytes)
        if holding > 0 {
            plan.memory.gainMap = holding
            plan.budget = request.limits.memoryBudget
        }
        return plan
    }

    /// The smallest decode scale, in eighths, whose longest side still reaches `longestSide`
    /// (8 when even the full size does not).
    public static func decodeScaleEighths(toReach longestSide: Int, from size: PixelSize) -> Int {
        (1...8).first { eighths in
            let decoded = SourceHeader.scaled(size, eighths: eighths)
            return max(decoded.width, decoded.height) >= longestSide
        } ?? 8
    }

    static func openDecoder(_ input: any ByteSource, request: RenderRequest) throws -> SourceDecoder {
        do {
            return try SourceDecoder.open(
                input, heifLimits: HEIFLimits(request.limits, threads: request.threads),
                maxScans: request.limits.maxScans)
        } catch let error as StreamError {
            throw RenderError.codec(CodecError(sniffing: error, object: input.objectName))
        } catch let error as HEIFError {
            // A file too big to hold in this budget is the budget's refusal, not damage.
            if let fileBytes = error.fileBytes {
                throw RenderError.budgetTooSmall(
                    needed: 2 * fileBytes, budget: request.limits.memoryBudget,
                    reason: "holding this \(ByteCount.format(fileBytes)) HEIF file in memory while libheif reads it")
            }
            throw RenderError.codec(CodecError(error))
        } catch let error as JPEGError {
            throw RenderError.codec(CodecError(error))
        }
    }

    static func publish(_ upload: any ObjectUpload) throws(RenderError) -> Int {
        do {
            return try upload.commit()
        } catch {
            throw .output(error)
        }
    }
}

/// libjpeg and libheif errors become render errors; render errors pass through.
@inline(__always)
func wrap<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as JPEGError {
        throw RenderError.codec(CodecError(error))
    } catch let error as HEIFError {
        throw RenderError.codec(CodecError(error))
    }
}
