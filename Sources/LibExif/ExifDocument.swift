internal import CExif

/// The EXIF block of one JPEG, parsed by libexif. Sole owner of its `ExifData`.
///
/// Not `Sendable`: libexif structures are not thread-safe. Make one per photo and let it go.
public final class ExifDocument {
    /// The largest payload one APP1 segment can carry (65535 minus the 2-byte length field).
    public static let maximumPayloadSize = 65533

    private let data: UnsafeMutablePointer<ExifData>

    /// What libexif reported as corrupt while loading; empty for a clean block.
    public let warnings: [String]

    /// Parses the payload of a JPEG APP1 segment: `Exif\0\0` followed by a TIFF header.
    ///
    /// Loads the block as stored: unknown tags are kept and libexif is not allowed to add
    /// "mandatory" tags or fix values (`EXIF_DATA_OPTION_FOLLOW_SPECIFICATION` is off).
    /// - Throws: `ExifDocumentError` when the bytes are not an EXIF payload or nothing readable
    ///   was found in them.
    public init(app1Payload: [UInt8]) throws(ExifDocumentError) {
        let context = ["payloadBytes": String(app1Payload.count)]
        guard app1Payload.starts(with: ExifDocument.exifHeader) else {
            throw ExifDocumentError(
                code: .notExifPayload,
                message:
                    "The bytes do not start with \"Exif\\0\\0\"; pass the payload of the APP1 segment that carries EXIF, not another APP1 (such as XMP) or the whole file.",
                context: context
            )
        }
        guard app1Payload.count <= ExifDocument.maximumPayloadSize else {
            throw ExifDocumentError(
                code: .payloadTooLarge,
                message:
                    "An APP1 payload holds at most \(ExifDocument.maximumPayloadSize) bytes; pass a single segment's payload.",
                context: context
            )
        }
        // The capture first: if exif_data_new failed after it, nothing would free the ExifData.
        guard let capture = ExifLogCapture(), let data = exif_data_new() else {
            throw ExifDocumentError(
                code: .outOfMemory,
                message: "libexif could not allocate its structures; the process is out of memory.",
                context: context
            )
        }
        self.data = data

        exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_log(data, capture.log)
        app1Payload.withUnsafeBufferPointer { bytes in
            exif_data_load_data(data, bytes.baseAddress, UInt32(bytes.count))
        }
        warnings = capture.warnings

        if ExifIFD.allCases.allSatisfy({ entryCount(in: $0) == 0 }) {
            var details = context
            if !warnings.isEmpty { details["libexif"] = warnings.joined(separator: "; ") }
            throw ExifDocumentError(
                code: .noReadableEntries,
                message:
                    "libexif found no readable entry in the EXIF block; it is corrupt or empty. Treat the photo as having no EXIF.",
                context: details
            )
        }
    }

    deinit {
        exif_data_unref(data)
    }

    /// The value of `tag` in `ifd`, or `nil` when the entry is absent.
    public func value(_ tag: ExifTag, in ifd: ExifIFD) -> ExifValue? {
        guard let content = content(of: ifd),
            let entry = exif_content_get_entry(content, CExif.ExifTag(rawValue: UInt32(tag.rawValue)))
        else { return nil }
        return decode(entry.pointee)
    }

    /// The tags present in `ifd`, in file order.
    public func tags(in ifd: ExifIFD) -> [ExifTag] {
        guard let content = content(of: ifd), let entries = content.pointee.entries else { return [] }
        return (0..<Int(content.pointee.count)).compactMap { index in
            entries[index].map { ExifTag(UInt16(truncatingIfNeeded: $0.pointee.tag.rawValue)) }
        }
    }

    /// The thumbnail JPEG libexif found through IFD1, or `nil` when there is none.
    public var thumbnail: [UInt8]? {
        guard let bytes = data.pointee.data, data.pointee.size > 0 else { return nil }
        return [UInt8](UnsafeBufferPointer(start: bytes, count: Int(data.pointee.size)))
    }

    private static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]

    private func entryCount(in ifd: ExifIFD) -> Int {
        content(of: ifd).map { Int($0.pointee.count) } ?? 0
    }

    private func content(of ifd: ExifIFD) -> UnsafeMutablePointer<ExifContent>? {
        // `ExifData.ifd` is a C array indexed by `ExifIfd`: 0, 1, EXIF, GPS, INTEROPERABILITY.
        let contents = data.pointee.ifd
        return switch ifd {
        case .zero: contents.0
        case .one: contents.1
        case .exif: contents.2
        case .gps: contents.3
        case .interoperability: contents.4
        }
    }

    private func decode(_ entry: ExifEntry) -> ExifValue {
        let bytes = entry.data.map { [UInt8](UnsafeBufferPointer(start: $0, count: Int(entry.size))) } ?? []
        return ExifValue(
            format: UInt16(truncatingIfNeeded: entry.format.rawValue),
            components: Int(clamping: entry.components),
            bytes: bytes,
            bigEndian: exif_data_get_byte_order(data) == EXIF_BYTE_ORDER_MOTOROLA
        )
    }
}

@available(*, unavailable, message: "libexif structures are not thread-safe; create one ExifDocument per task")
extension ExifDocument: Sendable {}
