import ByteStreams
import GainMaps
import JPEGTurbo
import LibHeif

/// An original's gain map carried through a render: loaded whole (it is small: a quarter or
/// half of the image per side), checked against the picture, then rendered through the same
/// orientation, crops, turns and rotations as the image, scaled to its own resolution, in strips
/// under the budget. Colour operations and blurs change the image, not the map (as Apple Photos
/// keeps a map through an edit). A map that cannot be carried is dropped with a
/// `RenderWarning.gainMapDropped` and the render is standard range; it never fails the render.
struct GainMapCarry {
    var kind: GainMapKind
    var metadata: GainMapMetadata
    var samples: GainMapSamples

    /// Why a map was not carried (the warning's reason).
    /// Why a map is left out; the render goes on standard range and says so.
    struct Drop: Error, Sendable, CustomStringConvertible {
        enum Code: String, Sendable {
            /// The map cannot be read or its metadata cannot be used.
            case unreadable = "gain_map_unreadable"
            /// It does not fit the budget, or is larger than darkroom holds.
            case tooLarge = "gain_map_too_large"
            /// Its shape does not follow the image's (another aspect, a crop it cannot follow).
            case unaligned = "gain_map_unaligned"
        }

        var code: Code
        var reason: String
        var cause: (any Error & Sendable)?

        init(_ code: Code, reason: String, cause: (any Error & Sendable)? = nil) {
            self.code = code
            self.reason = reason
            self.cause = cause
        }

        var description: String { "\(reason) [\(code.rawValue)]" }
    }

    /// The gain map of the input `decoder` has open (not started); nil when it has none. A HEIF's
    /// auxiliary map is decoded by that decoder; a JPEG whose header has an MPF index is read
    /// again whole through `reopen` (at most `maxBytes`) for the images after its own.
    static func load(from decoder: SourceDecoder, reopen: () throws -> any ByteSource, maxBytes: Int) throws(Drop)
        -> GainMapCarry?
    {
        let name = decoder.rows.objectName
        switch decoder.codec {
        case .heif(let heif):
            let found: SourceGainMap?
            do {
                found = try SourceGainMap.find(in: heif.header)
            } catch {
                throw Drop(.unreadable, reason: "its gain map is unreadable: \(error)", cause: error)
            }
            guard let found else { return nil }
            if let transfer = hdrTransfer(of: heif.header) {
                throw Drop(
                    .unreadable,
                    reason:
                        "the picture is coded for HDR displays (\(transfer == .pq ? "PQ" : "HLG")), which its render does not "
                        + "describe, so the map would not apply to the render's pixels")
            }
            let samples: GainMapSamples
            do {
                samples = try found.decode(from: heif)
            } catch {
                throw Drop(.unreadable, reason: "its gain map could not be decoded: \(error)", cause: error)
            }
            return try checked(found, samples: samples)
        case .jpeg(let jpeg):
            guard jpeg.header.hasMPF else { return nil }
            let bytes: [UInt8]
            do {
                bytes = try readWhole(try reopen(), maxBytes: maxBytes)
            } catch let error as Drop {
                throw error
            } catch {
                throw Drop(
                    .unreadable, reason: "the original could not be read again for its gain map: \(error)", cause: error
                )
            }
            let found: SourceGainMap?
            do {
                found = try SourceGainMap.find(in: bytes, objectName: name)
            } catch {
                throw Drop(.unreadable, reason: "its gain map is unreadable: \(error)", cause: error)
            }
            guard let found else { return nil }
            do {
                return try checked(found, samples: found.decode(from: bytes, objectName: name))
            } catch let error as Drop {
                throw error
            } catch {
                throw Drop(.unreadable, reason: "its gain map could not be decoded: \(error)", cause: error)
            }
        }
    }

    /// An HDR transfer (PQ, HLG) in the picture's nclx, which no ICC profile of a render
    /// describes (`OutputColorProfile`): libavif's HDR-base AVIFs, whose map goes down to SDR.
    private static func hdrTransfer(of header: HEIFHeader) -> TransferCharacteristics? {
        guard header.iccProfile == nil, let nclx = header.nclx,
            let transfer = TransferCharacteristics(rawValue: nclx.transfer), transfer.isHighDynamicRange
        else { return nil }
        return transfer
    }

    private static func checked(_ found: SourceGainMap, samples: GainMapSamples) throws(Drop) -> GainMapCarry {
        if let size = found.size, size != PixelSize(width: samples.width, height: samples.height) {
            throw Drop(
                .unreadable,
                reason: "the gain map decodes to \(samples.width)x\(samples.height), not its stated \(size)")
        }
        return GainMapCarry(kind: found.kind, metadata: found.metadata, samples: samples)
    }

    private static func readWhole(_ input: any ByteSource, maxBytes: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = try chunk.withUnsafeMutableBytes { buffer throws(StreamError) in try input.read(into: buffer) }
            if got == 0 { return bytes }
            guard bytes.count + got <= maxBytes else {
                throw Drop(
                    .tooLarge, reason: "finding the gain map means holding the whole file, more than \(maxBytes) bytes")
            }
            bytes += chunk[..<got]
        }
    }

    var size: PixelSize { PixelSize(width: samples.width, height: samples.height) }
    var samplesBytes: Int { samples.codes.count }

    /// A map whose shape is not the picture's cannot be aligned with it: refused unless its aspect
    /// ratio is the picture's within a pixel of rounding and it is at most twice the picture per
    /// side (libavif's own test files have maps slightly larger than their image).
    func checkShape(picture: PixelSize) throws(Drop) {
        let map = size
        guard map.width >= 1, map.height >= 1, map.width <= 2 * picture.width, map.height <= 2 * picture.height
        else {
            throw Drop(.unaligned, reason: "a \(map) gain map for a \(picture) picture is of an absurd size")
        }
        let expectedHeight = Double(map.width) * Double(picture.height) / Double(picture.width)
        let expectedWidth = Double(map.height) * Double(picture.width) / Double(picture.height)
        guard abs(expectedHeight - Double(map.height)) <= 1 || abs(expectedWidth - Double(map.width)) <= 1 else {
            throw Drop(.unaligned, reason: "a \(map) gain map does not have the shape of the \(picture) picture")
        }
        do {
            _ = try metadata.validated(.xmp)
        } catch {
            throw Drop(.unreadable, reason: "its gain map's metadata contradict themselves: \(error)", cause: error)
        }
    }

    /// The map's geometry: the image's, at the map's resolution. `picture` is the image the
    /// orientation applies to (what the map covers); colour operations and blurs are left out.
    func geometry(picture: PixelSize, orientation: Orientation, operations: [ImageOperation]) throws(Drop)
        -> RenderGeometry
    {
        let operations = Self.mapOperations(
            operations, image: orientation.orientedSize(of: picture), map: orientation.orientedSize(of: size))
        do {
            return try RenderGeometry(storedSize: size, orientation: orientation, operations: operations)
        } catch {
            throw Drop(.unaligned, reason: "the edit's geometry does not fit the gain map: \(error)", cause: error)
        }
    }

    /// The geometric operations, each scaled by the map's size over the image's in the frame it
    /// applies to (crops to whole map pixels, at least one). A rotation's fill shows no gain:
    /// its corners get the map's lowest code.
    static func mapOperations(_ operations: [ImageOperation], image: PixelSize, map: PixelSize) -> [ImageOperation] {
        var image = image
        var map = map
        var result: [ImageOperation] = []
        for operation in operations {
            let scaleX = Double(map.width) / Double(image.width)
            let scaleY = Double(map.height) / Double(image.height)
            switch operation {
            case .crop(let rect):
                let (x, width) = scaled(rect.x, rect.width, by: scaleX, within: map.width)
                let (y, height) = scaled(rect.y, rect.height, by: scaleY, within: map.height)
                result.append(.crop(PixelRect(x: x, y: y, width: width, height: height)))
                image = rect.size
                map = PixelSize(width: width, height: height)
            case .orient(let turn):
                result.append(operation)
                image = turn.orientedSize(of: image)
                map = turn.orientedSize(of: map)
            case .rotate(let rotation):
                var turned = rotation
                if case .rect(let rect) = rotation.window {
                    let x = (Double(rect.x) * scaleX).rounded()
                    let y = (Double(rect.y) * scaleY).rounded()
                    let width = max(1, (Double(rect.maxX) * scaleX).rounded() - x)
                    let height = max(1, (Double(rect.maxY) * scaleY).rounded() - y)
                    turned.window = .rect(PixelRect(x: Int(x), y: Int(y), width: Int(width), height: Int(height)))
                }
                if rotation.fill != nil { turned.fill = RGBColor(red: 0, green: 0, blue: 0) }
                result.append(.rotate(turned))
                image = rotation.windowRect(on: image).size
                map = turned.windowRect(on: map).size
            default:
                continue
            }
        }
        return result
    }

    /// An interval of the image scaled onto the map's pixels: rounded edges, at least one pixel,
    /// inside `size`.
    private static func scaled(_ start: Int, _ length: Int, by scale: Double, within size: Int) -> (Int, Int) {
        let low = min(max(Int((Double(start) * scale).rounded()), 0), size - 1)
        let high = min(max(Int((Double(start + length) * scale).rounded()), low + 1), size)
        return (low, high - low)
    }

    /// A rendition's map: the rendition's share of the image, at the map's resolution.
    static func renditionSize(mapOutput: PixelSize, output: PixelSize, rendition: PixelSize) -> PixelSize {
        func side(_ map: Int, _ image: Int, _ shown: Int) -> Int {
            min(map, max(1, Int((Double(shown) * Double(map) / Double(image)).rounded())))
        }
        return PixelSize(
            width: side(mapOutput.width, output.width, rendition.width),
            height: side(mapOutput.height, output.height, rendition.height))
    }

    /// A bound on an encoded map of `size`: JPEG at darkroom's qualities stays under a byte a
    /// sample, plus its headers.
    static func encodedBound(_ size: PixelSize, channels: Int) -> Int {
        size.area * channels + (64 << 10)
    }
}

/// The map rendered: its JPEG, ready to join the image's, and each rendition's share by the
/// rendition's name.
struct RenderedGainMap {
    var kind: GainMapKind
    var metadata: GainMapMetadata
    var jpeg: [UInt8]
    var renditions: [String: RenditionGainMap]
    var size: PixelSize

    /// What the image's render holds of it.
    var heldBytes: Int { jpeg.count + renditions.values.reduce(0) { $0 + $1.bytes } }
}

/// A rendition's share of a rendered gain map, as its format carries it.
enum RenditionGainMap {
    /// A JPEG, joined to the rendition's JPEG as Ultra HDR.
    case jpeg([UInt8])
    /// The samples an AVIF codes beside its picture.
    case samples(GainMapSamples)

    var bytes: Int {
        switch self {
        case .jpeg(let bytes): bytes.count
        case .samples(let samples): samples.codes.count
        }
    }
}

extension GainMapCarry {
    /// Renders the map with `plan` (from `RenderPlanner.planGainMap`) into memory: greyscale for a
    /// luminance map, RGB (4:4:4) for a colour one. The bytes do not depend on the budget.
    func render(
        plan: RenderPlan, quality: Int, spillDirectory: String, isCancelled: @escaping @Sendable () -> Bool
    ) throws -> RenderedGainMap {
        let grey = samples.channels == 1
        var encoding = JPEGEncoding(quality: quality, fullChroma: true)
        if grey { encoding.color = .grey }
        let output = plan.geometry.outputSize
        let sink = MemorySink(name: "gain map")
        let encoder = try wrap { try JPEGEncoder(sink: sink) }
        try wrap { try encoder.start(width: output.width, height: output.height, encoding: encoding) }
        let renditions = try plan.renditions.map { planned -> (name: String, writer: any GainMapRenditionWriter) in
            let size = planned.size
            guard planned.rendition.format == .jpeg else {
                return (planned.rendition.name, HeldGainMapWriter(size: size, channels: samples.channels))
            }
            let sink = MemorySink(name: "gain map (rendition \(planned.rendition.name))")
            let encoder = try wrap { try JPEGEncoder(sink: sink) }
            try wrap { try encoder.start(width: size.width, height: size.height, encoding: encoding) }
            return (planned.rendition.name, GainMapRowWriter(encoder, sink: sink, width: size.width, grey: grey))
        }
        let fan =
            renditions.isEmpty
            ? nil
            : RenditionFan(
                output: output, sizes: plan.renditions.map { $0.size }, writers: renditions.map { $0.writer })
        let pipeline = StripPipeline(
            plan: plan, decoder: GainMapRows(samples, name: "gain map"), encoder: encoder,
            spillDirectory: spillDirectory, threads: 1, isCancelled: isCancelled)
        let produce = pipeline.makeProducer()
        let strip = UnsafeMutableRawBufferPointer.allocate(
            byteCount: output.width * plan.stripHeight * 3, alignment: 16)
        defer { strip.deallocate() }
        let greyStrip = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: output.width * plan.stripHeight)
        defer { greyStrip.deallocate() }
        while true {
            if isCancelled() { throw RenderError.cancelled }
            let rows = try produce(strip)
            if rows == 0 { break }
            let bytes = UnsafePointer(strip.baseAddress!.assumingMemoryBound(to: UInt8.self))
            try fan?.add(rows: rows, from: bytes)
            try wrap {
                try Self.write(bytes, width: output.width, rows: rows, grey: grey, scratch: greyStrip, to: encoder)
            }
        }
        try wrap { try encoder.finish() }
        try fan?.finish()
        return RenderedGainMap(
            kind: kind, metadata: metadata, jpeg: sink.bytes,
            renditions: Dictionary(uniqueKeysWithValues: renditions.map { ($0.name, $0.writer.rendered) }), size: output
        )
    }

    /// RGB rows (equal channels for a luminance map) to the encoder: their first channel for grey.
    fileprivate static func write(
        _ rgb: UnsafePointer<UInt8>, width: Int, rows: Int, grey: Bool, scratch: UnsafeMutableBufferPointer<UInt8>,
        to encoder: JPEGEncoder
    ) throws {
        guard grey else {
            try encoder.writeRows(
                from: UnsafeRawBufferPointer(start: rgb, count: width * rows * 3), rowStride: width * 3,
                rowCount: rows)
            return
        }
        for index in 0..<(width * rows) { scratch[index] = rgb[index * 3] }
        try encoder.writeRows(
            from: UnsafeRawBufferPointer(start: scratch.baseAddress!, count: width * rows), rowStride: width,
            rowCount: rows)
    }
}

/// A gain map's samples as the RGB rows a render's strips read (a luminance map's value in all
/// three channels).
final class GainMapRows: ScanlineDecoder {
    let objectName: String
    private let samples: GainMapSamples
    private(set) var nextRow = 0

    init(_ samples: GainMapSamples, name: String) {
        self.samples = samples
        objectName = name
    }

    var outputHeight: Int { samples.height }

    func readRows(into buffer: UnsafeMutableRawBufferPointer, rowStride: Int, rowCount: Int) throws -> Int {
        let rows = min(rowCount, samples.height - nextRow)
        let width = samples.width
        let target = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        samples.codes.withUnsafeBufferPointer { codes in
            for row in 0..<rows {
                let out = target + row * rowStride
                let start = (nextRow + row) * width * samples.channels
                if samples.channels == 3 {
                    out.update(from: codes.baseAddress! + start, count: width * 3)
                } else {
                    for x in 0..<width {
                        let code = codes[start + x]
                        (out[3 * x], out[3 * x + 1], out[3 * x + 2]) = (code, code, code)
                    }
                }
            }
        }
        nextRow += rows
        return rows
    }

    func skipRows(_ count: Int) throws {
        nextRow = min(samples.height, nextRow + count)
    }
}

/// An encoded JPEG kept in memory (a gain map's: small, and bounded in the plan).
final class MemorySink: ByteSink {
    let objectName: String
    private(set) var bytes: [UInt8] = []

    init(name: String) { objectName = name }

    func write(_ bytes: UnsafeRawBufferPointer) throws(StreamError) {
        self.bytes.append(contentsOf: bytes)
    }
}

/// Where a rendition's share of the map goes while the map renders.
protocol GainMapRenditionWriter: RenditionWriter {
    /// After `finish`: what the rendition carries.
    var rendered: RenditionGainMap { get }
}

/// A JPEG rendition's map rows into its JPEG encoder, grey or RGB as the map is.
final class GainMapRowWriter: GainMapRenditionWriter {
    private let encoder: JPEGEncoder
    private let sink: MemorySink
    private let width: Int
    private let grey: Bool
    private let scratch: UnsafeMutableBufferPointer<UInt8>

    init(_ encoder: JPEGEncoder, sink: MemorySink, width: Int, grey: Bool) {
        self.encoder = encoder
        self.sink = sink
        self.width = width
        self.grey = grey
        scratch = .allocate(capacity: width)
    }

    deinit { scratch.deallocate() }

    func write(row: UnsafePointer<UInt8>) throws {
        try wrap { try GainMapCarry.write(row, width: width, rows: 1, grey: grey, scratch: scratch, to: encoder) }
    }

    func finish() throws { try wrap { try encoder.finish() } }

    var rendered: RenditionGainMap { .jpeg(sink.bytes) }
}

/// An AVIF rendition's map rows, held as samples (one channel for a luminance map) until the
/// rendition's encoder codes them beside its picture.
final class HeldGainMapWriter: GainMapRenditionWriter {
    private let size: PixelSize
    private let channels: Int
    private var codes: [UInt8] = []

    init(size: PixelSize, channels: Int) {
        self.size = size
        self.channels = channels
        codes.reserveCapacity(size.area * channels)
    }

    func write(row: UnsafePointer<UInt8>) throws {
        precondition(codes.count < size.area * channels, "more rows than the map's \(size)")
        if channels == 3 {
            codes.append(contentsOf: UnsafeBufferPointer(start: row, count: size.width * 3))
        } else {
            for x in 0..<size.width { codes.append(row[3 * x]) }
        }
    }

    func finish() throws {
        precondition(codes.count == size.area * channels, "the map got \(codes.count / channels) of its pixels")
    }

    var rendered: RenditionGainMap {
        .samples(GainMapSamples(width: size.width, height: size.height, channels: channels, codes: codes))
    }
}

extension GainMapCarry {
    /// The largest JPEG read whole for the gain map after its image: the file, the map's decoded
    /// RGB rows and its samples together must fit the budget. (A HEIF's map comes from the
    /// image's own decoder, whose file is priced already.)
    static func maxFileBytes(_ limits: RenderLimits) -> Int {
        min(SourceGainMap.maxFileBytes, limits.memoryBudget / 3)
    }
}
