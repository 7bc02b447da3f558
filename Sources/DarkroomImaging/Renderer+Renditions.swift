import ByteStreams
import JPEGTurbo
import LittleCMS

extension RenderRequest {
    /// The display copy alone, or nothing: what a `display:` upload asks for.
    func displayCopy(_ wanted: Bool) -> [Rendition] {
        wanted ? [.display(longestSide: displayLongestSide)] : []
    }
}

/// Each rendition's writer: its encoder started with the metadata and colour its definition
/// asks for, behind a conversion to sRGB when asked.
extension Renderer {
    static func startRendition(
        _ planned: RenditionPlan, sink: any ByteSink, request: RenderRequest, header: SourceHeader,
        profile sourceProfile: [UInt8]?, optimizeCoding: Bool, warnings: inout [RenderWarning]
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
        let exif =
            rendition.metadata == .none
            ? nil
            : exif(
                for: size, request: request, header: header, keepsLocation: rendition.metadata == .all,
                warnings: &warnings)
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
            let metadata = RenditionCodecs.Metadata(iccProfile: profile, exif: exif)
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
