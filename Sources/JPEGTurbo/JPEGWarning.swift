/// Something irregular about a JPEG that cost no pixel: every row was decoded from the file's
/// own data. The caller records it so operators can find such files; `code` is stable.
public enum JPEGWarning: Sendable, Hashable, CustomStringConvertible {
    /// The data ends after its last scan without the EOI marker: a file cut just short of its
    /// last two bytes (phones and upload tools do this). `fileLength` is where it ends.
    case missingEOI(fileLength: Int)
    /// `count` bytes follow the EOI marker, which ends at byte `eoiEnd`: a trailer some cameras
    /// and phones add (a second image, a video, padding), or something appended by mistake.
    case trailingBytes(count: Int, eoiEnd: Int)
    /// `count` bytes lay between marker segments, outside any scan's data, and were skipped to
    /// reach `marker` (at byte `markerOffset`; in `runs` places in all, summed): junk an editor
    /// left in the header or between scans. libjpeg says "extraneous bytes before marker".
    case extraneousBytes(count: Int, marker: Int, markerOffset: Int, runs: Int)
    /// The ICC profile's APP2 chunks do not fit together (a wrong count, a repeated, zero or
    /// missing sequence number), so no profile could be assembled: the pixels are read as sRGB
    /// and a render carries no ICC profile. `chunks` are the (sequence, count) pairs found.
    case iccUnreadable(chunks: [ICCChunk])

    /// One APP2 `ICC_PROFILE` segment's numbering: its sequence number and the count it gives.
    public struct ICCChunk: Sendable, Hashable {
        public var sequence: Int
        public var count: Int
        public init(sequence: Int, count: Int) {
            self.sequence = sequence
            self.count = count
        }
    }

    /// What operators query for; never changes for a case.
    public var code: String {
        switch self {
        case .missingEOI: "jpeg.missing_eoi"
        case .trailingBytes: "jpeg.trailing_bytes"
        case .extraneousBytes: "jpeg.extraneous_bytes"
        case .iccUnreadable: "icc.unreadable"
        }
    }

    /// Where in the file it applies: the end of the data, the end of the EOI marker, the marker
    /// after skipped bytes; nil for the ICC chunks (libjpeg keeps no offsets of segments).
    public var byteOffset: Int? {
        switch self {
        case .missingEOI(let length): length
        case .trailingBytes(_, let eoiEnd): eoiEnd
        case .extraneousBytes(_, _, let markerOffset, _): markerOffset
        case .iccUnreadable: nil
        }
    }

    /// How many bytes it concerns, when that is the point.
    public var byteCount: Int? {
        switch self {
        case .missingEOI, .iccUnreadable: nil
        case .trailingBytes(let count, _), .extraneousBytes(let count, _, _, _): count
        }
    }

    public var message: String {
        switch self {
        case .missingEOI(let length):
            "the file ends at byte \(length) without its EOI marker, after complete image data; rendered as is"
        case .trailingBytes(let count, let eoiEnd):
            "\(count) byte\(count == 1 ? "" : "s") follow the EOI marker at byte \(eoiEnd); ignored"
        case .extraneousBytes(let count, let marker, let offset, let runs):
            "\(count) extraneous byte\(count == 1 ? "" : "s") between marker segments, before marker "
                + JPEGEnding.hex(marker) + " at byte \(offset)" + (runs > 1 ? " (and in \(runs - 1) more places)" : "")
                + "; skipped: no scan data lies there"
        case .iccUnreadable(let chunks):
            "the ICC profile's APP2 chunks do not fit together (sequence/count: "
                + chunks.map { "\($0.sequence)/\($0.count)" }.joined(separator: ", ")
                + "); ignored: the colours are read as sRGB and the render carries no ICC profile"
        }
    }

    public var description: String { "\(code): \(message)" }
}
