import ByteStreams
import JPEGTurbo
import LibHeif

/// What an input says about itself before any pixel is decoded, whatever its format: enough
/// to plan a render and to record an asset. The format is told by content (a HEIF starts with
/// an `ftyp` box naming a HEIF brand; anything else is read as JPEG), never by a file name.
/// The codec's own header stays inside imaging: callers read these facts.
public struct SourceHeader: Sendable, Equatable {
    enum Codec: Sendable, Equatable {
        case jpeg(JPEGHeader)
        case heif(HEIFHeader)
    }

    let codec: Codec

    static func jpeg(_ header: JPEGHeader) -> SourceHeader { SourceHeader(codec: .jpeg(header)) }
    static func heif(_ header: HEIFHeader) -> SourceHeader { SourceHeader(codec: .heif(header)) }

    /// The size of the picture a render's orientation applies to: a JPEG's stored size, a
    /// HEIF's displayed size (after its `irot`, `imir` and `clap`).
    public var storedSize: PixelSize {
        switch codec {
        case .jpeg(let header): PixelSize(width: header.width, height: header.height)
        case .heif(let header): PixelSize(width: header.width, height: header.height)
        }
    }

    /// The rows the decoder delivers when asked to scale by `scaleEighths`/8 (libjpeg's DCT
    /// scaling, rounding up; a HEIF always decodes at full size, as coded), and how they become
    /// the picture.
    func placement(scaleEighths: Int) -> SourcePlacement {
        switch codec {
        case .jpeg: SourcePlacement(decodedSize: Self.scaled(storedSize, eighths: scaleEighths))
        case .heif(let header):
            SourcePlacement(
                coded: PixelSize(width: header.codedWidth, height: header.codedHeight), transforms: header.transforms)
        }
    }

    /// Whether the input is a JPEG whose MPF index declares images after its own (a gain map, a
    /// stereo pair, a depth map): the bytes after its EOI marker are those, not stray bytes.
    var declaresFollowingImages: Bool {
        if case .jpeg(let header) = codec { header.hasMPF } else { false }
    }

    static func scaled(_ size: PixelSize, eighths: Int) -> PixelSize {
        PixelSize(width: (size.width * eighths + 7) / 8, height: (size.height * eighths + 7) / 8)
    }

    /// The EXIF block as a JPEG APP1 payload (`Exif\0\0` + TIFF), for either format.
    public var exifPayload: [UInt8]? {
        switch codec {
        case .jpeg(let header): header.exifPayload
        case .heif(let header): header.exifPayload
        }
    }

    /// The XMP packet (a JPEG's XMP APP1 segment after its signature, a HEIF's XMP item), whose
    /// capture date and location an import reads when the EXIF has none.
    public var xmpPacket: [UInt8]? {
        switch codec {
        case .jpeg(let header): header.xmpPacket
        case .heif(let header): header.xmpPacket
        }
    }

    /// An image sequence's movie box (`moov`), for its QuickTime metadata; nil for a JPEG and
    /// a still HEIF.
    public var movieBox: [UInt8]? {
        if case .heif(let header) = codec { return header.movieBox }
        return nil
    }

    /// The ICC profile the file embeds (a JPEG's APP2, a HEIF's `colr`), which describes its
    /// pixels and which a render carries (`OutputColorProfile`).
    public var iccProfile: [UInt8]? {
        switch codec {
        case .jpeg(let header): header.iccProfile
        case .heif(let header): header.iccProfile
        }
    }

    /// What the header says about metadata darkroom cannot read (an import records these).
    public var metadataWarnings: [String] {
        switch codec {
        case .jpeg: []
        case .heif(let header): header.warnings
        }
    }

    /// Whether the file orients its own pixels. HEIF stores rotation and mirroring as
    /// `irot`/`imir`, which every render applies before the orientation it is given; the EXIF
    /// Orientation phones also write is then information only (HEIF and MIAF say so) and is
    /// never applied a second time.
    public var carriesOwnOrientation: Bool {
        if case .heif = codec { return true }
        return false
    }

    /// "JPEG", "HEIC", "AVIF" or "HEIF".
    public var formatName: String {
        switch codec {
        case .jpeg: "JPEG"
        case .heif(let header): header.fileType.kind.rawValue
        }
    }

    /// The extension a stored copy of the file gets.
    public var fileExtension: String {
        switch codec {
        case .jpeg: "jpg"
        case .heif(let header): header.fileType.fileExtension
        }
    }

    public var isProgressive: Bool {
        if case .jpeg(let header) = codec { return header.isProgressive }
        return false
    }

    /// Reads the header of whatever image `source` holds, decoding no pixels (a HEIF is read
    /// whole: libheif needs all of it). Throws `StreamError` or `CodecError`.
    public static func read(from source: any ByteSource) throws -> SourceHeader {
        try read(from: source, heifLimits: HEIFLimits())
    }

    static func read(from source: any ByteSource, heifLimits: HEIFLimits) throws -> SourceHeader {
        do {
            return try SourceDecoder.open(source, heifLimits: heifLimits).header
        } catch let error as JPEGError {
            throw CodecError(error)
        } catch let error as HEIFError {
            throw CodecError(error)
        }
    }
}

/// Stored rows top to bottom, whatever the format: what the strips read.
protocol ScanlineDecoder: AnyObject {
    var objectName: String { get }
    var outputHeight: Int { get }
    /// Rows handed out (or skipped) so far.
    var nextRow: Int { get }
    func readRows(into buffer: UnsafeMutableRawBufferPointer, rowStride: Int, rowCount: Int) throws -> Int
    func skipRows(_ count: Int) throws
}

extension JPEGDecoder: ScanlineDecoder {}
extension HEIFDecoder: ScanlineDecoder {}

/// The decoder an input needs, picked by its first bytes.
final class SourceDecoder {
    enum Codec {
        case jpeg(JPEGDecoder)
        case heif(HEIFDecoder)
    }

    let codec: Codec
    let header: SourceHeader
    /// A CMYK or YCCK JPEG's rows turned into RGB, once started.
    private var cmykRows: CMYKRows?
    private var conversionWarning: RenderWarning?

    /// RGB rows, whatever the file stores.
    var rows: any ScanlineDecoder {
        if let cmykRows { return cmykRows }
        switch codec {
        case .jpeg(let decoder): return decoder
        case .heif(let decoder): return decoder
        }
    }

    private init(_ codec: Codec) {
        self.codec = codec
        switch codec {
        case .jpeg(let decoder): header = SourceHeader(codec: .jpeg(decoder.header))
        case .heif(let decoder): header = SourceHeader(codec: .heif(decoder.header))
        }
    }

    /// darkroom's own mistake in driving this decoder, as its codec reports one (`misuse`), so
    /// the failure names the input's format.
    func misuse(_ message: String, objectName: String) -> any Error {
        switch codec {
        case .jpeg: JPEGError(code: .misuse, message: message, object: objectName)
        case .heif: HEIFError(code: .misuse, message: message, object: objectName)
        }
    }

    /// Reads the first bytes of `input` to tell its format, then opens the decoder on all of it.
    static func open(_ input: any ByteSource, heifLimits: HEIFLimits, maxScans: Int = JPEGDecoder.defaultMaxScans)
        throws -> SourceDecoder
    {
        var prefix = [UInt8](repeating: 0, count: HEIFFileType.sniffLength)
        let got = try prefix.withUnsafeMutableBytes { buffer throws(StreamError) in try input.readFully(into: buffer) }
        prefix.removeSubrange(got...)
        let source = ReplayingSource(prefix: prefix, then: input)
        if let fileType = HEIFFileType(prefix: prefix) {
            // An MP4 or a CR3 is refused before it is read into memory.
            guard fileType.isHEIF else { throw HEIFError.notHEIF(fileType, object: input.objectName) }
            return SourceDecoder(.heif(try HEIFDecoder(source: source, limits: heifLimits)))
        }
        return SourceDecoder(.jpeg(try JPEGDecoder(source: source, maxScans: maxScans)))
    }

    /// Starts decoding: a JPEG's first scanline call (scaled by `scaleEighths`/8); a HEIF coded
    /// whole is decoded now, a grid a row of tiles at a time as rows are read. Returns the size
    /// of the rows it will deliver. A CMYK or YCCK JPEG is converted to RGB `rowsPerRead` rows
    /// at a time (the plan's decode rows, as priced).
    func start(scaleEighths: Int = 8, rowsPerRead: Int = 16) throws -> PixelSize {
        switch codec {
        case .jpeg(let decoder):
            let method = CMYKMethod(decoder.header)
            let size = try decoder.start(scaleEighths: scaleEighths, output: method == nil ? .rgb : .cmyk)
            if let method {
                let conversion = CMYKConversion(method)
                conversionWarning = conversion.warning
                cmykRows = CMYKRows(decoder: decoder, conversion: conversion, rowsPerRead: rowsPerRead)
            }
            return PixelSize(width: size.width, height: size.height)
        case .heif(let decoder):
            try decoder.start()
            return PixelSize(width: decoder.header.codedWidth, height: decoder.header.codedHeight)
        }
    }

    /// Ends the decode: a JPEG decodes the data of the rows not read and judges how it ended
    /// (damage below the last needed row still fails); a HEIF lets go of its image.
    func finish() throws {
        switch codec {
        case .jpeg(let decoder): try decoder.finish()
        case .heif(let decoder): try decoder.finish()
        }
    }

    /// What the decoder met without spoiling the pixels (after `finish`): a JPEG's irregular
    /// ending; libheif's warnings are errors (strict decoding).
    var warnings: [RenderWarning] {
        switch codec {
        case .jpeg(let decoder):
            decoder.warnings.map { .input(InputWarning($0), object: decoder.objectName) }
                + (conversionWarning.map { [$0] } ?? [])
        case .heif: []
        }
    }
}

extension HEIFLimits {
    /// What a render may hold: the file in memory within its budget, tiles on its threads.
    init(_ limits: RenderLimits, threads: Int) {
        self.init(maxFileBytes: min(limits.memoryBudget, HEIFLimits().maxFileBytes), decodingThreads: threads)
    }
}
