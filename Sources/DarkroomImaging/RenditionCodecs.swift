import GainMaps
import LibHeif
import LibWebP

/// The encoders of the renditions that take a picture whole: WebP (libwebp) and AVIF
/// (libheif's AOM encoder). JPEG renditions stream through libjpeg like the full render.
enum RenditionCodecs {
    struct Metadata {
        var iccProfile: [UInt8]?
        /// An APP1 payload (`Exif\0\0` + TIFF), as the render's EXIF is built.
        var exif: [UInt8]?
        /// The render's gain map at the rendition's share, coded beside the picture (AVIF only).
        var gainMap: HEIFGainMapPicture?
    }

    /// An AVIF rendition's map: its samples and ISO 21496-1's metadata as a `tmap` item holds them.
    static func gainMap(_ samples: GainMapSamples, metadata: GainMapMetadata) throws(GainMapError)
        -> HEIFGainMapPicture
    {
        HEIFGainMapPicture(
            width: samples.width, height: samples.height, channels: samples.channels, samples: samples.codes,
            toneMapItem: try ISOGainMapMetadata.encodeToneMapItem(metadata.validated(.iso21496)))
    }

    /// The metadata a WebP rendition may carry, ICC profile and EXIF together.
    static let maxWebPMetadataBytes = WebPMetadata.maxTotalBytes

    /// What the encoder holds at its peak beyond the picture (its output included), and an AVIF's
    /// `gainMap` coded beside it.
    static func workingBytes(_ format: Rendition.Format, size: PixelSize, gainMap: RenditionMapShape? = nil) -> Int {
        switch format {
        case .jpeg: return 0
        case .webp: return WebPEncoder.workingBytes(width: size.width, height: size.height)
        case .avif:
            let settings = HEIFWriteSettings(quality: 50)
            let picture = HEIFWriter.workingBytes(width: size.width, height: size.height, settings: settings)
            guard let gainMap else { return picture }
            return picture
                + HEIFWriter.gainMapWorkingBytes(
                    width: gainMap.size.width, height: gainMap.size.height, channels: gainMap.channels,
                    settings: settings)
        }
    }

    static func encode(
        _ format: Rendition.Format, pixels: UnsafeBufferPointer<UInt8>, size: PixelSize, quality: Int,
        metadata: Metadata, objectName: String
    ) throws -> [UInt8] {
        switch format {
        case .jpeg:
            preconditionFailure("JPEG renditions stream through JPEGRenditionWriter")
        case .webp:
            do {
                // WebP's EXIF chunk holds the TIFF structure alone.
                let tiff = metadata.exif.map { Array($0.dropFirst(6)) }
                return try WebPEncoder.encode(
                    rgb: pixels, width: size.width, height: size.height, settings: WebPSettings(quality: quality),
                    metadata: WebPMetadata(iccProfile: metadata.iccProfile, exif: tiff), name: objectName)
            } catch {
                throw RenderError.codec(CodecError(error))
            }
        case .avif:
            do {
                return try HEIFWriter.encode(
                    rgb: pixels, width: size.width, height: size.height,
                    settings: HEIFWriteSettings(
                        quality: quality, exif: metadata.exif, iccProfile: metadata.iccProfile),
                    gainMap: metadata.gainMap, name: objectName)
            } catch {
                throw RenderError.codec(CodecError(error))
            }
        }
    }
}

extension CodecError {
    /// Every WebP refusal is darkroom's own doing (the plan checks sizes, the definition its
    /// settings) but running out of memory.
    init(_ error: WebPError) {
        let code: Code = error.code == .outOfMemory ? .outOfMemory : .misuse
        self.init(
            code: code, format: .webp, message: error.message, object: error.name,
            isPermanent: error.code != .outOfMemory, cause: error)
    }
}
