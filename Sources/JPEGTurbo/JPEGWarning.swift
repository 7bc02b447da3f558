/// Something irregular about a JPEG that cost no pixel: every row was decoded from the file's
/// own data. The caller records it so operators can find such files; `code` is stable.
public enum JPEGWarning: Sendable, Hashable, CustomStringConvertible {
    /// The data ends after its last scan without the EOI marker: a file cut just short of its
    /// last two bytes (phones and upload tools do this). `fileLength` is where it ends.
    case missingEOI(fileLength: Int)
    /// `count` bytes follow the EOI marker, which ends at byte `eoiEnd`: a trailer some cameras
    /// and phones add (a second image, a video, padding), or something appended by mistake.
    case trailingBytes(count: Int, eoiEnd: Int)

    /// What operators query for; never changes for a case.
    public var code: String {
        switch self {
        case .missingEOI: "jpeg.missing_eoi"
        case .trailingBytes: "jpeg.trailing_bytes"
        }
    }

    /// Where in the file it applies: the end of the data, or the end of the EOI marker.
    public var byteOffset: Int {
        switch self {
        case .missingEOI(let length): length
        case .trailingBytes(_, let eoiEnd): eoiEnd
        }
    }

    /// How many bytes it concerns, when that is the point.
    public var byteCount: Int? {
        switch self {
        case .missingEOI: nil
        case .trailingBytes(let count, _): count
        }
    }

    public var message: String {
        switch self {
        case .missingEOI(let length):
            "the file ends at byte \(length) without its EOI marker, after complete image data; rendered as is"
        case .trailingBytes(let count, let eoiEnd):
            "\(count) byte\(count == 1 ? "" : "s") follow the EOI marker at byte \(eoiEnd); ignored"
        }
    }

    public var description: String { "\(code): \(message)" }
}
