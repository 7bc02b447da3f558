import ByteStreams
import JPEGTurbo
import LittleCMS

/// Each rendition's writer: its encoder started with the metadata and colour its definition
/// asks for, behind a conversion to sRGB when asked.
extension Renderer {
    static func startRendition(
        _ planned: RenditionPlan, sink: any ByteSink, request: RenderRequest, header: SourceHeader,
        profile sourceProfile: [UInt8]?, gainMap: RenderedGainMap? = nil, optimizeCoding: Bool,
        warnings: inout [RenderWarning]
    ) throws -> any RenditionWriter {
        let rendition = planned.rendition
        let size = planned.size
        var profile = request.keepICCProfile ? sourceProfile : nil
        var transform: RGBTransform?
        if rendition.color == .srgb, let source = sourceProfile {
            do {
                transform = try RGBTransform(from: ColorProfile(iccBytes: source), to: ColorProfile.sRGB())
                profile = OutputColorProfile.sRGB
            } catch {
                warnings.append(.renditionNotConverted(rendition: rendition.name, reason: error.description))
            }
        }
        var exif =
            rendition.metadata == .none
            ? nil
            : exif(
                for: size, request: request, header: header, keepsLocation: rendition.metadata == .all,
                warnings: &warnings)
        // A WebP carries at most `WebPMetadata.maxTotalBytes` of metadata: the EXIF goes first,
        // then the profile, never the rendition (metadata never fails a render).
        if rendition.format == .webp {
            let limit = RenditionCodecs.maxWebPMetadataBytes
            if let kept = exif, kept.count + (profile?.count ?? 0) > limit {
                exif = nil
                warnings.append(
                    .renditionMetadataLeftOut(
                        rendition: rendition.name,
                        reason: "its EXIF (\(kept.count) bytes) and colour profile (\(profile?.count ?? 0) bytes) "
                            + "are more than the \(limit) bytes a WebP rendition carries, so the EXIF was left out"))
            }
            if let kept = profile, kept.count > limit {
                profile = nil
                warnings.append(
                    .renditionMetadataLeftOut(
                        rendition: rendition.name,
                        reason: "its \(kept.count)-byte colour profile is more than the \(limit) bytes a WebP "
                            + "rendition carries, so viewers read it as sRGB"))
            }
        }
        let quality = rendition.quality ?? request.encoding.quality
        let writer: any RenditionWriter
        switch rendition.format {
        case .jpeg:
            let encoder = try wrap { try JPEGEncoder(sink: sink) }
            var encoding = RenderPlanner.jpegEncoding(rendition, request.encoding).jpeg
            encoding.optimizeCoding = optimizeCoding
            try wrap {
                try encoder.start(width: size.width, height: size.height, encoding: encoding)
                if let exif { try encoder.writeMarker(app: 1, payload: exif) }
                if let profile { try encoder.writeICCProfile(profile) }
            }
            writer = JPEGRenditionWriter(encoder: encoder, width: size.width)
        case .webp, .avif:
            var metadata = RenditionCodecs.Metadata(iccProfile: profile, exif: exif)
            if rendition.joinsGainMap, let gainMap, case .samples(let samples) = gainMap.renditions[rendition.name] {
                do {
                    metadata.gainMap = try RenditionCodecs.gainMap(samples, metadata: gainMap.metadata)
                } catch {
                    warnings.append(
                        .gainMapDropped(reason: "rendition \(rendition.name) cannot carry its metadata: \(error)"))
                }
            }
            writer = HeldPictureWriter(size: size, sink: sink, format: rendition.format == .webp ? .webp : .heif) {
                pixels, size in
                try RenditionCodecs.encode(
                    rendition.format, pixels: pixels, size: size, quality: quality, metadata: metadata,
                    objectName: sink.objectName)
            }
        }
        return transform.map { SRGBConvertingWriter(transform: $0, width: size.width, next: writer) } ?? writer
    }
}
