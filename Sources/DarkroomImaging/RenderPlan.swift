import JPEGTurbo
import LibHeif
import LittleCMS

/// Limits a render must stay inside.
public struct RenderLimits: Sendable, Equatable {
    /// Bytes the render's own buffers (libjpeg's included) may use at their peak.
    public var memoryBudget: Int
    /// Refuse images with more pixels than this (decompression bombs).
    public var maxPixels: Int
    /// Refuse files with more scans than this (progressive decompression bombs).
    public var maxScans: Int

    public static let defaultMaxPixels = 268_402_689  // libvips' default: 16384²
    /// What a render or a worker has when no budget is given.
    public static let defaultMemoryBudget = 256 << 20

    /// The largest file a render within these limits writes, so the bound on each file a
    /// decoding child writes (RLIMIT_FSIZE): a spill holds 3 bytes a pixel (tiles rounded up),
    /// and no output comes near 8 (a JPEG of noise at quality 100 is about 3); at least 1 GiB,
    /// so that a small pixel limit never cuts a thin image's tiles.
    public var maxFileBytes: Int { max(maxPixels > Int.max / 8 ? Int.max : maxPixels * 8, 1 << 30) }

    public init(
        memoryBudget: Int = RenderLimits.defaultMemoryBudget, maxPixels: Int = RenderLimits.defaultMaxPixels,
        maxScans: Int = JPEGDecoder.defaultMaxScans
    ) {
        self.memoryBudget = memoryBudget
        self.maxPixels = maxPixels
        self.maxScans = maxScans
    }
}

/// How rotated or flipped pixels wait between decode and encode.
public enum SpillKind: String, Sendable, Equatable {
    /// Output rows come in decode order (orientations 1 and 2).
    case none
    /// The stored rectangle fits the budget: keep it in memory.
    case memory
    /// Tiles in an unlinked temporary file.
    case file
}

/// Where the memory of a render goes, in bytes.
public struct MemoryEstimate: Sendable, Equatable {
    public var decoder = 0
    public var encoder = 0
    public var stripBuffers = 0
    public var spillBuffers = 0
    public var tables = 0
    /// The codec's input and output buffers and whatever the streams' backends hold.
    public var streams = 0
    /// A CMYK or YCCK JPEG's conversion to RGB: its CMYK rows and Little CMS's transform.
    public var conversion = 0
    /// Rotations' and orientations' bands, blocks and in-memory spills.
    public var resampling = 0
    /// The rendered gain map's JPEGs, held until they are joined to the image's, and the join's
    /// buffer (`GainMapCarry`); its own render comes before and is priced on its own.
    public var gainMap = 0
    /// The renditions' downscalers, JPEG encoders and held WebP and AVIF pictures
    /// (`RenditionPlan.bytes`), and the row they share.
    public var renditions = 0
    /// The largest WebP or AVIF encoder's peak (`RenditionPlan.encoderBytes`): they run one at a
    /// time once the strips are done, when the strips, spill and resampling buffers are freed.
    public var renditionEncoder = 0
    /// The peak of the render's two phases: the strips, then the renditions' encoders.
    public var total: Int {
        let held = decoder + encoder + tables + streams + conversion + gainMap + renditions
        return held + max(stripBuffers + spillBuffers + resampling, renditionEncoder)
    }
}

/// Everything decided before the first pixel is decoded. A pure value: the same
/// header, operations and limits always give the same plan.
public struct RenderPlan: Sendable, Equatable, CustomStringConvertible {
    public var geometry: RenderGeometry
    /// Stored rows decoded per read.
    public var decodeRows: Int
    /// Tile size of the spill (width × height in stored pixels); nil without a spill.
    public var tile: PixelSize?
    public var spill: SpillKind
    /// Bytes the spill holds (in memory or on disk).
    public var spillBytes: Int
    /// Output rows per strip (the last may be shorter; with a spill, strips follow tiles).
    public var stripHeight: Int
    public var optimizeCoding: Bool
    public var memory: MemoryEstimate
    public var budget: Int
    public var isProgressive: Bool
    /// The renditions written beside the output, scaled from its strips, in the order asked.
    public var renditions: [RenditionPlan] = []
    /// The display copy's size, when it is among the renditions.
    public var displaySize: PixelSize? { renditions.first { $0.rendition.name == Rendition.displayName }?.size }
    /// "JPEG", "HEIC", "AVIF" or "HEIF".
    public var inputFormat: String = "JPEG"
    /// How a HEIF or AVIF is decoded (whole, or a row of tiles at a time), priced in `memory.decoder`.
    public var heifDecode: HEIFDecode?
    /// How each rotation or orientation of the operations holds its input, in order.
    public var resampling: [ResamplePlan] = []

    public var description: String {
        var lines: [String] = []
        let g = geometry
        if let decode = heifDecode {
            lines.append(
                "input      \(g.storedSize) coded \(inputFormat); its irot/imir/clap and the orientation give "
                    + "orientation \(g.orientation.rawValue) → \(g.orientedSize) (EXIF orientation is not applied again)"
            )
            lines.append("decode     " + decode.description)
        } else {
            lines.append(
                "input      \(g.storedSize) stored \(inputFormat), orientation \(g.orientation.rawValue) → \(g.orientedSize) upright\(isProgressive ? ", progressive" : "")"
            )
        }
        lines.append(
            "output     \(g.outputSize) (region \(g.outputRect) of the upright image, from stored \(g.storedRect))")
        if g.hasBlurs {
            lines.append(
                "halo       reads \(g.readRect) of the upright image; blur rings \(ByteCount.format(RenderPlanner.neighbourhoodBytes(g)))"
            )
        }
        for (resample, stage) in zip(resampling, g.resampleSteps) {
            lines.append("resample   \(stage.input) → \(stage.output) of \(stage.step.size): \(resample)")
        }
        lines.append("strips     decode \(decodeRows) rows at a time, \(stripHeight) output rows per strip")
        for planned in renditions {
            let rendition = planned.rendition
            lines.append(
                "rendition  \(rendition.name): \(planned.size) \(rendition.format.rawValue.uppercased()) "
                    + "(area average in linear light), \(ByteCount.format(planned.bytes))")
        }
        if let tile {
            lines.append("spill      \(spill.rawValue), tiles \(tile), \(ByteCount.format(spillBytes))")
        } else {
            lines.append("spill      none (rows stream in decode order)")
        }
        lines.append("operations \(g.operationNames.isEmpty ? "none" : g.operationNames.joined(separator: ", "))")
        lines.append(
            "huffman    \(optimizeCoding ? "optimised (two passes, whole-image coefficients)" : "standard tables (one pass)")"
        )
        lines.append(
            "memory     decoder \(ByteCount.format(memory.decoder)), encoder \(ByteCount.format(memory.encoder)), "
                + "strips \(ByteCount.format(memory.stripBuffers)), spill \(ByteCount.format(memory.spillBuffers)), "
                + "tables \(ByteCount.format(memory.tables)), streams \(ByteCount.format(memory.streams))"
                + (memory.conversion > 0 ? ", CMYK → RGB \(ByteCount.format(memory.conversion))" : "")
                + (memory.resampling > 0 ? ", resampling \(ByteCount.format(memory.resampling))" : "")
                + (memory.renditions > 0 ? ", renditions \(ByteCount.format(memory.renditions))" : "")
                + (memory.renditionEncoder > 0
                    ? ", then a rendition's encoder \(ByteCount.format(memory.renditionEncoder)) in place of the strips"
                    : ""))
        lines.append("total      \(ByteCount.format(memory.total)) of a \(ByteCount.format(budget)) budget")
        return lines.joined(separator: "\n")
    }
}

/// What libheif holds while it decodes: the file, a copy of the item being decoded, the codec's
/// state and the decoded pixels, which are the whole image for an image coded whole but one row
/// of tiles (and the tile being decoded) for a grid.
public struct HEIFDecode: Sendable, Equatable, CustomStringConvertible {
    /// The coded image's size.
    public var size: PixelSize
    /// A grid's tiles; nil when the image is decoded whole.
    public var tile: PixelSize?
    public var tileColumns = 1
    /// Peak bytes per pixel while decoding (`HEIFHeader.decodeBytesPerPixel`).
    public var bytesPerPixel: Int
    /// The file, held whole while libheif reads it, and the copy of an image sequence's movie
    /// box its header keeps (`HEIFHeader.movieBox`).
    public var fileBytes: Int
    /// The compressed item libheif copies out of the file to decode it: the largest tile of a
    /// grid, else the image (as large as the file, at most).
    public var itemBytes: Int
    /// The codec's own state (libde265's or dav1d's pictures and tables). Checked by `make bench`.
    public var codecBytes: Int

    /// libde265 or dav1d on one tile or image: its reference pictures and tables.
    public static let codecBytes = 16 << 20

    init(_ header: HEIFHeader) {
        size = PixelSize(width: header.codedWidth, height: header.codedHeight)
        bytesPerPixel = header.decodeBytesPerPixel
        fileBytes = header.fileBytes + (header.movieBox?.count ?? 0)
        codecBytes = Self.codecBytes
        if let tiling = header.tiling {
            tile = PixelSize(width: tiling.tileWidth, height: tiling.tileHeight)
            tileColumns = tiling.columns
            itemBytes = tiling.largestTileBytes
        } else {
            itemBytes = header.fileBytes
        }
    }

    /// The decoded pixels at their peak: the image, or a row of tiles in 8-bit RGB and the
    /// tile being decoded.
    public var pixelBytes: Int {
        guard let tile else { return size.area * bytesPerPixel }
        return tile.height * size.width * 3 + tile.area * bytesPerPixel
    }

    public var total: Int { pixelBytes + fileBytes + itemBytes + codecBytes }

    public var description: String {
        let held =
            "file \(ByteCount.format(fileBytes)), item \(ByteCount.format(itemBytes)), codec \(ByteCount.format(codecBytes))"
        guard let tile else {
            return "whole image at once (coded whole): \(size) × \(bytesPerPixel) B/px = "
                + "\(ByteCount.format(pixelBytes)), \(held); rows then stream from the decoded image"
        }
        return "a row of \(tileColumns) tiles of \(tile) at a time: \(ByteCount.format(tile.height * size.width * 3)) "
            + "of rows + one tile × \(bytesPerPixel) B/px, \(held)"
    }
}

/// Chooses strip and tile sizes so a render fits its memory budget.
public enum RenderPlanner {
    /// Optimised Huffman coding. `auto` turns it on only when it fits the budget, which
    /// makes the output bytes depend on the budget; `off` (the default) never does.
    public enum HuffmanOptimisation: String, Sendable, CaseIterable, Codable {
        case off, on, auto
    }

    /// Candidate strip and tile heights, largest first: bigger strips mean fewer calls
    /// and fewer spill reads, smaller ones less memory.
    static let candidateHeights = [256, 128, 64, 32, 16, 8]

    static func plan(
        header: JPEGHeader, geometry: RenderGeometry, encoding: OutputEncoding,
        huffman: HuffmanOptimisation = .off, limits: RenderLimits, renditions: [Rendition] = [],
        streamBufferBytes: Int = 0
    ) throws -> RenderPlan {
        try plan(
            source: .jpeg(header), geometry: geometry, encoding: encoding, huffman: huffman, limits: limits,
            renditions: renditions, streamBufferBytes: streamBufferBytes)
    }

    public static func plan(
        source: SourceHeader, geometry: RenderGeometry, encoding: OutputEncoding,
        huffman: HuffmanOptimisation = .off, limits: RenderLimits, renditions: [Rendition] = [],
        streamBufferBytes: Int = 0
    ) throws -> RenderPlan {
        try plan(
            source: source, geometry: geometry, encoding: encoding, huffman: huffman, limits: limits,
            renditions: renditions, renditionMaps: [:], streamBufferBytes: streamBufferBytes)
    }

    /// As above; `renditionMaps` names the AVIF renditions that code a gain map beside their
    /// picture, and its shape.
    static func plan(
        source: SourceHeader, geometry: RenderGeometry, encoding: OutputEncoding, huffman: HuffmanOptimisation,
        limits: RenderLimits, renditions: [Rendition], renditionMaps: [String: RenditionMapShape],
        streamBufferBytes: Int
    ) throws -> RenderPlan {
        let streams = streamBytes(outputs: 1 + renditions.count, backendBytesPerStream: streamBufferBytes)
        let planned = renditions.map {
            plan($0, output: geometry.outputSize, encoding: encoding, gainMap: renditionMaps[$0.name])
        }
        let renditionBytes = renditionBytes(planned, output: geometry.outputSize)
        let stored = geometry.storedSize
        guard stored.area <= limits.maxPixels else {
            throw RenderError.imageTooLarge(pixels: stored.area, limit: limits.maxPixels)
        }
        // A rotation's window may be larger than the image it turns.
        if let large = geometry.resampleSteps.map(\.step.size.area).first(where: { $0 > limits.maxPixels }) {
            throw RenderError.imageTooLarge(pixels: large, limit: limits.maxPixels)
        }
        let decoder = decoderBytes(source)
        if source.isProgressive, decoder > limits.memoryBudget {
            throw RenderError.budgetTooSmall(
                needed: decoder, budget: limits.memoryBudget,
                reason: "this progressive JPEG's whole-image coefficient buffer (\(stored))")
        }
        let candidate = { (height: Int) in
            Self.plan(
                source: source, geometry: geometry, encoding: encoding, height: height,
                decoder: decoder, renditionBytes: renditionBytes, streams: streams, budget: limits.memoryBudget)
        }
        guard var plan = candidateHeights.lazy.map(candidate).first(where: { $0.memory.total <= limits.memoryBudget })
        else {
            let smallest = candidateHeights.last!
            let needed = candidate(smallest).memory.total
            if case .heif(let heif) = source.codec, heif.tiling == nil {
                throw RenderError.budgetTooSmall(
                    needed: needed, budget: limits.memoryBudget,
                    reason: "decoding this \(source.formatName)'s \(stored) image, coded whole, at once "
                        + "(\(heif.decodeBytesPerPixel) bytes a pixel at its peak) and rendering it")
            }
            throw RenderError.budgetTooSmall(
                needed: needed, budget: limits.memoryBudget,
                reason: "rendering \(stored) to \(geometry.outputSize) with \(smallest)-row strips")
        }
        plan.renditions = planned
        // Optimised coding holds every coefficient of the output and of each JPEG rendition.
        let coefficients =
            coefficientBytes(size: geometry.outputSize, fullChroma: encoding.jpeg.fullChroma)
            + planned.filter { $0.rendition.format == .jpeg }.reduce(0) {
                $0 + coefficientBytes(size: $1.size, fullChroma: jpegEncoding($1.rendition, encoding).jpeg.fullChroma)
            }
        switch huffman {
        case .off:
            break
        case .on:
            guard plan.memory.total + coefficients <= limits.memoryBudget else {
                throw RenderError.budgetTooSmall(
                    needed: plan.memory.total + coefficients, budget: limits.memoryBudget,
                    reason: "optimised Huffman coding of \(geometry.outputSize)")
            }
            plan.optimizeCoding = true
            plan.memory.encoder += coefficients
        case .auto:
            if plan.memory.total + coefficients <= limits.memoryBudget {
                plan.optimizeCoding = true
                plan.memory.encoder += coefficients
            }
        }
        return plan
    }

    /// A gain map's render (`GainMapCarry`): its samples, held whole, are its decoder; no colour
    /// operation runs on it. nil when even the smallest strips do not fit `budget`.
    static func planGainMap(
        geometry: RenderGeometry, samplesBytes: Int, renditions: [RenditionPlan], fullChroma: Bool, budget: Int
    ) -> RenderPlan? {
        let encoding = OutputEncoding(quality: OutputEncoding.defaultQuality, fullChroma: fullChroma)
        let renditionBytes = renditionBytes(renditions, output: geometry.outputSize)
        let streams = (1 + renditions.count) * JPEGEncoder.destinationBufferBytes
        let plans = candidateHeights.lazy.map { height in
            plan(
                source: nil, geometry: geometry, encoding: encoding, height: height, decoder: samplesBytes,
                renditionBytes: renditionBytes, streams: streams, budget: budget)
        }
        guard var plan = plans.first(where: { $0.memory.total <= budget }) else { return nil }
        plan.renditions = renditions
        return plan
    }

    /// One candidate strip height. `source` is nil for a gain map's samples, already in memory.
    private static func plan(
        source: SourceHeader?, geometry: RenderGeometry, encoding: OutputEncoding, height: Int, decoder: Int,
        renditionBytes: (held: Int, encoder: Int), streams: Int, budget: Int
    ) -> RenderPlan {
        let stored = geometry.storedSize
        let region = geometry.storedRect
        let output = geometry.outputSize
        let orientation = geometry.orientation
        var memory = MemoryEstimate()
        memory.decoder = decoder
        memory.encoder = encoderBytes(width: output.width, fullChroma: encoding.jpeg.fullChroma)
        memory.renditions = renditionBytes.held
        memory.renditionEncoder = renditionBytes.encoder
        memory.tables = SRGBEncoder.bytes + 256 * 4 + lookupTableBytes(geometry)
        memory.streams = streams
        // Decoded rows are full stored width: libjpeg decodes whole rows.
        let decodeStrip = stored.width * 3 * height
        var plan = RenderPlan(
            geometry: geometry, decodeRows: height, tile: nil, spill: .none, spillBytes: 0,
            stripHeight: height, optimizeCoding: false, memory: memory, budget: budget,
            isProgressive: source?.isProgressive ?? false)
        plan.inputFormat = source?.formatName ?? "gain map"
        if case .heif(let heif) = source?.codec { plan.heifDecode = HEIFDecode(heif) }
        let halo = neighbourhoodBytes(geometry) + (geometry.hasNeighbourhoodOperations ? region.width * height * 3 : 0)
        if orientation.streamsRows {
            plan.memory.stripBuffers = decodeStrip + outputStripBytes(width: output.width, rows: height) + halo
            plan.memory.conversion = conversionBytes(source, width: stored.width, rowsPerRead: plan.decodeRows)
            priceResampling(&plan, height: height)
            return plan
        }
        // Flips keep whole rows together; quarter turns cut rows into square tiles so an
        // output strip is one tile column.
        let tile =
            orientation.swapsAxes
            ? PixelSize(width: min(height, region.width), height: min(height, region.height))
            : PixelSize(width: region.width, height: min(height, region.height))
        let band = orientation.swapsAxes ? tile.width * region.height * 3 : region.width * tile.height * 3
        let spillBytes = region.width * region.height * 3
        plan.tile = tile
        plan.decodeRows = tile.height
        plan.stripHeight = orientation.swapsAxes ? tile.width : tile.height
        plan.spillBytes = spillBytes
        plan.memory.stripBuffers =
            stored.width * 3 * tile.height
            + outputStripBytes(width: output.width, rows: plan.stripHeight) + halo
        plan.memory.spillBuffers = band
        plan.memory.conversion = conversionBytes(source, width: stored.width, rowsPerRead: plan.decodeRows)
        var inMemory = plan.memory
        inMemory.spillBuffers += spillBytes
        if inMemory.total <= budget / 2 {
            plan.spill = .memory
            plan.memory = inMemory
        } else {
            plan.spill = .file
        }
        priceResampling(&plan, height: height)
        return plan
    }

    /// Each rotation's band when it fits what is left of the budget, else its tiles.
    static func priceResampling(_ plan: inout RenderPlan, height: Int) {
        let space = ResamplePlan.space(for: plan.geometry)
        for stage in plan.geometry.resampleSteps {
            let resample = ResamplePlan.plan(
                step: stage.step, input: stage.input, output: stage.output, height: height,
                available: plan.budget - plan.memory.total, spillRoom: plan.budget / 2 - plan.memory.total,
                space: space)
            plan.resampling.append(resample)
            plan.memory.resampling += resample.bytes
        }
    }

    /// The filters' LUTs (each table once, however many steps use it) and the transfer
    /// curves their kernel reads.
    static func lookupTableBytes(_ geometry: RenderGeometry) -> Int {
        var seen: [ObjectIdentifier] = []
        var total = 0
        for step in geometry.steps {
            guard case .filter(let filter) = step.operation, let table = filter.table else { continue }
            if total == 0 { total = TransferCurves.bytes }
            guard !seen.contains(ObjectIdentifier(table)) else { continue }
            seen.append(ObjectIdentifier(table))
            total += table.byteCount
        }
        return total
    }

    /// A CMYK or YCCK JPEG decodes `rowsPerRead` rows of 4 bytes a pixel into the conversion's own
    /// buffer, then converts them into the RGB strip; with an ICC profile, Little CMS's transform too.
    static func conversionBytes(_ source: SourceHeader?, width: Int, rowsPerRead: Int) -> Int {
        guard case .jpeg(let header) = source?.codec, let method = CMYKMethod(header) else { return 0 }
        let rows = width * 4 * rowsPerRead
        if case .profile = method { return rows + CMYKToRGBTransform.approximateBytes }
        return rows
    }

    /// The decoder's input buffer, each encoder's output buffer, and what the backend holds
    /// per stream (the input and every output).
    static func streamBytes(outputs: Int, backendBytesPerStream: Int) -> Int {
        JPEGDecoder.sourceBufferBytes + outputs * JPEGEncoder.destinationBufferBytes + (1 + outputs)
            * backendBytesPerStream
    }

    /// Each blur keeps 2r+1 rows of its output width in floats (twice for unsharp masks,
    /// which also keep the unblurred rows), plus one padded input row.
    static func neighbourhoodBytes(_ geometry: RenderGeometry) -> Int {
        geometry.stages.reduce(0) { total, stage in
            guard case .neighbourhood(let operation, _, let input, let output) = stage else { return total }
            let rows = 2 * operation.halo + 1
            let rings = if case .unsharpMask = operation { 2 } else { 1 }
            return total + rows * output.width * 12 * rings + (input.width + 2 * operation.halo) * 12 + input.width * 12
        }
    }

    /// One rendition: up to four open rows of sums at its width, its encoder, and for WebP and
    /// AVIF the picture held whole, and apart what their encoders hold (`RenditionCodecs`, an
    /// AVIF's `gainMap` coded too); with `--color srgb`, Little CMS's transform and a row to
    /// convert into.
    static func plan(
        _ rendition: Rendition, output: PixelSize, encoding: OutputEncoding, gainMap: RenditionMapShape? = nil
    ) -> RenditionPlan {
        let size = AreaResampler.displaySize(of: output, longestSide: rendition.longestSide)
        var bytes = size.width * 12 * 4 + size.width * 3
        var encoderBytes = 0
        switch rendition.format {
        case .jpeg:
            bytes += Self.encoderBytes(width: size.width, fullChroma: jpegEncoding(rendition, encoding).jpeg.fullChroma)
        case .webp, .avif:
            bytes += size.area * 3
            encoderBytes = RenditionCodecs.workingBytes(rendition.format, size: size, gainMap: gainMap)
        }
        if rendition.color == .srgb { bytes += RGBTransform.approximateBytes + size.width * 3 }
        return RenditionPlan(rendition: rendition, size: size, bytes: bytes, encoderBytes: encoderBytes)
    }

    /// A JPEG rendition's settings: its quality (or the render's), chroma as the quality says.
    static func jpegEncoding(_ rendition: Rendition, _ encoding: OutputEncoding) -> OutputEncoding {
        OutputEncoding(quality: rendition.quality ?? encoding.quality, fullChroma: encoding.fullChroma)
    }

    /// Every rendition and the linear row of the full width they share, held through the
    /// strips; and the largest encoder that runs after them.
    static func renditionBytes(_ renditions: [RenditionPlan], output: PixelSize) -> (held: Int, encoder: Int) {
        guard !renditions.isEmpty else { return (0, 0) }
        return (
            output.width * 12 + renditions.reduce(0) { $0 + $1.bytes }, renditions.map { $0.encoderBytes }.max() ?? 0
        )
    }

    /// Two 8-bit output strips (one colored while the other is encoded) and the
    /// cache-sized chunk of linear floats the color operations run on.
    static func outputStripBytes(width: Int, rows: Int) -> Int {
        width * rows * 3 * 2 + colorChunkBytes(width: width, maxRows: rows)
    }

    static func colorChunkBytes(width: Int, maxRows: Int) -> Int {
        width * StripColor.chunkHeight(width: width, maxRows: maxRows) * 3 * 4
    }

    /// The decoder at its peak: libjpeg's buffers, or libheif's.
    static func decoderBytes(_ source: SourceHeader) -> Int {
        switch source.codec {
        case .jpeg(let header): decoderBytes(header)
        case .heif(let header): HEIFDecode(header).total
        }
    }

    /// libjpeg's decompressor: per-component row buffers for one MCU row (plus the
    /// context rows fancy upsampling keeps), the row `JPEGDecoder.finish` reads the last row
    /// into, and for progressive files every coefficient.
    static func decoderBytes(_ header: JPEGHeader) -> Int {
        let rows = header.mcuRowHeight * 3
        let working = header.width * max(header.components, 3) * rows + header.width * 3 + 64 << 10
        guard header.isProgressive else { return working }
        return working + coefficientBytes(header)
    }

    /// Whole-image DCT coefficients: 2 bytes per sample of each component.
    static func coefficientBytes(_ header: JPEGHeader) -> Int {
        let maxH = header.samplingFactors.map(\.horizontal).max() ?? 1
        let maxV = header.samplingFactors.map(\.vertical).max() ?? 1
        var total = 0
        for factor in header.samplingFactors {
            let blocksWide = (header.width * factor.horizontal + maxH * 8 - 1) / (maxH * 8)
            let blocksHigh = (header.height * factor.vertical + maxV * 8 - 1) / (maxV * 8)
            total += blocksWide * blocksHigh * 64 * 2
        }
        return total
    }

    static func coefficientBytes(size: PixelSize, fullChroma: Bool) -> Int {
        let samplesPerPixel = fullChroma ? 3.0 : 1.5
        return Int(Double(size.area) * samplesPerPixel * 2)
    }

    /// libjpeg's compressor: color-converted and downsampled rows for one MCU row.
    static func encoderBytes(width: Int, fullChroma: Bool) -> Int {
        let mcuHeight = fullChroma ? 8 : 16
        return width * 3 * mcuHeight * 2 + 64 << 10
    }
}
