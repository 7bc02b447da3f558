import LibExif
import Logging

/// Reads `PhotoMetadata` from a JPEG's EXIF APP1 payload.
public enum MetadataReader {
    /// Never throws and never traps: missing EXIF gives default metadata and no warnings;
    /// corrupt EXIF gives whatever fields could still be read plus warnings naming the rest.
    ///
    /// - Parameter app1Payload: the payload of the first APP1 segment that starts with
    ///   `Exif\0\0`, or `nil` when the JPEG has none.
    public static func read(app1Payload: [UInt8]?) -> MetadataReadResult {
        guard let app1Payload else {
            return MetadataReadResult(metadata: PhotoMetadata(), warnings: [])
        }
        let document: ExifDocument
        do {
            document = try ExifDocument(app1Payload: app1Payload)
        } catch {
            let libexif = error.context["libexif"].map { " (libexif: \($0))" } ?? ""
            return MetadataReadResult(
                metadata: PhotoMetadata(),
                warnings: [
                    "EXIF unreadable, using defaults (orientation 1, no location or date): \(error.message)\(libexif)"
                ]
            )
        }
        var fields = ExifFieldReader(document: document)
        let metadata = fields.photoMetadata()
        return MetadataReadResult(
            metadata: metadata,
            warnings: document.warnings.map { "libexif: \($0)" } + fields.warnings
        )
    }

    /// `read(app1Payload:)` that logs each warning on `logger` at `.warning`, tagged with
    /// `file: source` when a source name is given.
    public static func read(app1Payload: [UInt8]?, source: String? = nil, logger: Logger) -> PhotoMetadata {
        let result = read(app1Payload: app1Payload)
        var metadata: Logger.Metadata = [:]
        if let source { metadata["file"] = "\(source)" }
        for warning in result.warnings {
            logger.warning("\(warning)", metadata: metadata)
        }
        return result.metadata
    }
}
