import ByteStreams
import GainMaps
import JPEGTurbo
import LibHeif

/// The HDR gain map an input carries, found by content: a JPEG's through its MPF index (Ultra
/// HDR, Adobe's and Apple's gain-map JPEGs), a HEIF's as Apple's auxiliary image
/// (`urn:com:apple:photo:2020:aux:hdrgainmap`, its headroom from its XMP or the MakerNote) or as
/// the gain map input of an ISO 21496-1 `tmap` item (Samsung's HEIC, AVIF). What an import
/// records; `decode` gives the map's samples.
public struct SourceGainMap: Sendable, Equatable {
    public var kind: GainMapKind
    /// The map's stored size; nil for a HEIF `tmap`'s until it is decoded (libheif reads the
    /// map's size, after its own transformations, only from the image that decodes it).
    public var size: PixelSize?
    public var metadata: GainMapMetadata

    enum Location: Sendable, Equatable {
        case jpeg(Range<Int>)
        case heifAuxiliary(id: UInt32)
        case heifToneMap
    }

    let location: Location

    /// The whole file is held to find the map: at most this many bytes.
    public static let maxFileBytes = HEIFLimits().maxFileBytes

    /// The gain map of the image `bytes` hold, nil when it has none. Throws `GainMapError` when
    /// the gain map's structures are unreadable or contradict each other, `CodecError` when the
    /// codec cannot read what they point at.
    public static func find(in bytes: [UInt8], objectName: String) throws -> SourceGainMap? {
        guard bytes.count <= maxFileBytes else {
            throw GainMapError(.tooLarge, .jpeg, "a file of \(bytes.count) bytes (at most \(maxFileBytes))")
        }
        if let fileType = HEIFFileType(prefix: bytes.prefix(HEIFFileType.sniffLength)), fileType.isHEIF {
            let decoder = try heifDecoder(bytes, objectName: objectName)
            return try find(in: decoder.header)
        }
        guard let found = try GainMapJPEG.locate(in: bytes) else { return nil }
        let header = try jpegHeader(Array(bytes[found.range]), objectName: objectName)
        return SourceGainMap(
            kind: found.kind, size: PixelSize(width: header.width, height: header.height), metadata: found.metadata,
            location: .jpeg(found.range))
    }

    static func find(in header: HEIFHeader) throws(GainMapError) -> SourceGainMap? {
        if let apple = header.auxiliaryImages.first(where: { $0.type == HEIFAuxiliaryImage.appleGainMapType }) {
            let metadata: GainMapMetadata
            if let packet = apple.xmp, let headroom = try GainMapXMP.apple(packet)?.headroom {
                metadata = try AppleHeadroom.metadata(linearHeadroom: headroom)
            } else if let exif = header.exifPayload, let tags = try AppleHeadroom.makerNoteTags(exifPayload: exif) {
                metadata = try AppleHeadroom.metadata(stops: AppleHeadroom.stops(tags))
            } else {
                throw GainMapError(
                    .inconsistent, .appleMakerNote, "an Apple gain map without its headroom (no XMP, no tags 33/48)")
            }
            return SourceGainMap(
                kind: .apple, size: PixelSize(width: apple.width, height: apple.height), metadata: metadata,
                location: .heifAuxiliary(id: apple.id))
        }
        guard let toneMap = header.toneMap else { return nil }
        if let error = toneMap.dataError {
            throw GainMapError(
                error.code == .tooLarge ? .tooLarge : .cut, .iso21496,
                "the tmap item's data could not be read: \(error.message)")
        }
        return SourceGainMap(
            kind: .iso21496, size: nil, metadata: try ISOGainMapMetadata.decode(toneMapItem: toneMap.data),
            location: .heifToneMap)
    }

    /// The map's samples, decoded from the same `bytes` `find` read: a luminance map has one
    /// channel, a colour one three.
    public func decode(from bytes: [UInt8], objectName: String) throws -> GainMapSamples {
        switch location {
        case .jpeg(let range):
            let name = "\(objectName) (gain map)"
            do {
                let decoder = try JPEGDecoder(source: MemorySource(Array(bytes[range]), name: name))
                let grey = decoder.header.colorSpace == .grayscale
                let size = try decoder.start()
                var rgb = [UInt8](repeating: 0, count: size.width * size.height * 3)
                var row = 0
                try rgb.withUnsafeMutableBytes { buffer in
                    while row < size.height {
                        let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[(row * size.width * 3)...])
                        row += try decoder.readRows(into: slice, rowStride: size.width * 3, rowCount: size.height - row)
                    }
                }
                try decoder.finish()
                let codes = grey ? stride(from: 0, to: rgb.count, by: 3).map { rgb[$0] } : rgb
                return GainMapSamples(width: size.width, height: size.height, channels: grey ? 1 : 3, codes: codes)
            } catch let error as JPEGError {
                throw CodecError(error)
            }
        case .heifAuxiliary, .heifToneMap:
            return try decode(from: Self.heifDecoder(bytes, objectName: objectName))
        }
    }

    /// A HEIF's map, decoded by the decoder (not started) whose header `find` read. Throws
    /// `CodecError` when libheif cannot locate or decode it.
    func decode(from decoder: HEIFDecoder) throws(CodecError) -> GainMapSamples {
        do throws(HEIFError) {
            switch location {
            case .heifAuxiliary(let id):
                let image = try decoder.decodeAuxiliary(id)
                return GainMapSamples(width: image.width, height: image.height, channels: 1, codes: image.samples)
            case .heifToneMap:
                return Self.samples(try decoder.decodeToneMapGainMap(), metadata: metadata)
            case .jpeg:
                throw HEIFError(code: .misuse, message: "a JPEG's gain map asked of a HEIF", object: decoder.objectName)
            }
        } catch {
            throw CodecError(error)
        }
    }

    /// A `tmap`'s map as samples. libheif decodes a map coded in colour to RGB; one that is grey
    /// (YCbCr with neutral chroma, as Samsung codes its maps) under one channel's metadata is
    /// kept as the one channel it is.
    static func samples(_ image: HEIFGainMapImage, metadata: GainMapMetadata) -> GainMapSamples {
        let codes = image.samples
        let pixels = stride(from: 0, to: codes.count, by: 3)
        if image.channels == 3, !metadata.isMultichannel,
            pixels.allSatisfy({ (index: Int) -> Bool in
                codes[index] == codes[index + 1] && codes[index] == codes[index + 2]
            })
        {
            return GainMapSamples(
                width: image.width, height: image.height, channels: 1, codes: pixels.map { codes[$0] })
        }
        return GainMapSamples(width: image.width, height: image.height, channels: image.channels, codes: codes)
    }

    private static func heifDecoder(_ bytes: [UInt8], objectName: String) throws -> HEIFDecoder {
        do {
            return try HEIFDecoder(source: MemorySource(bytes, name: objectName))
        } catch {
            throw CodecError(error)
        }
    }

    private static func jpegHeader(_ bytes: [UInt8], objectName: String) throws -> JPEGHeader {
        do {
            return try JPEGDecoder(source: MemorySource(bytes, name: "\(objectName) (gain map)")).header
        } catch let error as JPEGError {
            throw CodecError(error)
        }
    }
}

/// Bytes already in memory, as a stream.
private final class MemorySource: ByteSource {
    let objectName: String
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8], name: String) {
        self.bytes = bytes
        objectName = name
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        let count = min(buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
        offset += count
        return count
    }
}
