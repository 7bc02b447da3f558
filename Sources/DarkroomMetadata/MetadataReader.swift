import LibExif
import Logging

/// Reads `PhotoMetadata` from an EXIF block (a JPEG's APP1 payload, a HEIF's Exif item), the
/// date and location from XMP when EXIF has none, and then from an image sequence's QuickTime
/// metadata (`MovieMetadata`).
public enum MetadataReader {
    /// Never throws and never traps: missing EXIF gives default metadata and no warnings;
    /// corrupt EXIF gives whatever fields could still be read plus warnings naming the rest.
    ///
    /// - Parameters:
    ///   - app1Payload: the payload of the first APP1 segment that starts with `Exif\0\0` (or a
    ///     HEIF's Exif item as one, of any size up to `ExifCompaction.maximumInputSize`), or
    ///     `nil` when the photo has none.
    ///   - xmpPacket: the photo's XMP packet (a JPEG's XMP APP1 segment after its signature, a
    ///     HEIF's XMP item), whose date and location are taken when EXIF has none.
    ///   - movieBox: an image sequence's `moov` box, whose date and location are taken when
    ///     neither EXIF nor XMP has one.
    public static func read(app1Payload: [UInt8]?, xmpPacket: [UInt8]? = nil, movieBox: [UInt8]? = nil)
        -> MetadataReadResult
    {
        var result = readExif(app1Payload)
        if let xmpPacket, result.metadata.creationDate == nil || result.metadata.latitude == nil {
            readXMP(xmpPacket, into: &result)
        }
        if let movieBox, result.metadata.creationDate == nil || result.metadata.latitude == nil {
            let movie = MovieMetadata.read(movieBox: movieBox)
            result.warnings += movie.warnings
            result.metadata.fillGaps(
                date: movie.creationDate, source: movie.dateSource, latitude: movie.latitude,
                longitude: movie.longitude, altitude: movie.altitude)
        }
        return result
    }

    private static func readXMP(_ xmpPacket: [UInt8], into result: inout MetadataReadResult) {
        let xmp: XMPMetadata
        do {
            xmp = try XMPMetadata.read(packet: xmpPacket)
        } catch {
            result.warnings.append("XMP unreadable: \(error.message)")
            return
        }
        result.warnings += xmp.warnings
        result.metadata.fillGaps(
            date: xmp.creationDate, source: xmp.dateProperty.map { "XMP \($0)" }, latitude: xmp.latitude,
            longitude: xmp.longitude)
    }

    private static func readExif(_ app1Payload: [UInt8]?) -> MetadataReadResult {
        guard let app1Payload else {
            return MetadataReadResult(metadata: PhotoMetadata(), warnings: [])
        }
        var documents: [ExifDocument] = []
        var warnings: [String] = []
        var refusal: String?
        if app1Payload.count <= ExifDocument.maximumPayloadSize {
            do {
                let document = try ExifDocument(app1Payload: app1Payload)
                documents.append(document)
                warnings += document.warnings.map { "libexif: \($0)" }
            } catch {
                refusal = error.message + (error.context["libexif"].map { " (libexif: \($0))" } ?? "")
            }
        }
        // libexif reads no more than one APP1 segment and may stop at a bad entry: the block as
        // darkroom's own walk rebuilds it (`ExifCompaction`) gives what libexif did not reach.
        if documents.first?.warnings.isEmpty != true {
            do {
                let rebuilt = try ExifCompaction.compact(app1Payload, fitting: ExifDocument.maximumPayloadSize)
                if !rebuilt.droppedToFit.isEmpty {
                    warnings.append(
                        "EXIF block of \(app1Payload.count) bytes read without \(rebuilt.droppedToFit.joined(separator: ", "))"
                    )
                }
                documents.append(try ExifDocument(app1Payload: rebuilt.payload))
                if let refusal { warnings.append("libexif read none of the EXIF block as stored: \(refusal)") }
            } catch let error as ExifRewriteError {
                refusal = refusal ?? error.message
            } catch {
                refusal = refusal ?? "\(error)"
            }
        }
        guard !documents.isEmpty else {
            return MetadataReadResult(
                metadata: PhotoMetadata(),
                warnings: [
                    "EXIF unreadable, using defaults (orientation 1, no location or date): \(refusal ?? "no entries")"
                ])
        }
        var fields = ExifFieldReader(documents: documents)
        let metadata = fields.photoMetadata()
        return MetadataReadResult(
            metadata: metadata,
            warnings: warnings + fields.warnings
        )
    }

    /// `read(app1Payload:xmpPacket:)` that logs each warning on `logger` at `.warning`, tagged with
    /// `file: source` when a source name is given.
    public static func read(app1Payload: [UInt8]?, xmpPacket: [UInt8]? = nil, source: String? = nil, logger: Logger)
        -> PhotoMetadata
    {
        let result = read(app1Payload: app1Payload, xmpPacket: xmpPacket)
        var metadata: Logger.Metadata = [:]
        if let source { metadata["file"] = "\(source)" }
        for warning in result.warnings {
            logger.warning("\(warning)", metadata: metadata)
        }
        return result.metadata
    }
}
