/// The decoded value of one EXIF entry. A plain value: it owns its bytes, so it stays valid
/// after the `ExifDocument` that produced it is gone.
public enum ExifValue: Sendable, Hashable {
    /// BYTE.
    case bytes([UInt8])
    /// ASCII, up to (not including) the first NUL.
    case ascii(String)
    /// SHORT.
    case shorts([UInt16])
    /// LONG.
    case longs([UInt32])
    /// RATIONAL.
    case rationals([ExifRational])
    /// SRATIONAL.
    case signedRationals([ExifSignedRational])
    /// UNDEFINED (MakerNote, ExifVersion, …): opaque bytes.
    case undefined([UInt8])
    /// SBYTE, SSHORT, SLONG, FLOAT, DOUBLE or an unknown format: raw bytes in the file's byte
    /// order. darkroom never interprets these, it only needs to see that they are unchanged.
    case other(format: UInt16, bytes: [UInt8])
}

extension ExifValue {
    /// BYTE, SHORT and LONG values widened to `UInt32`, since writers disagree on which of the
    /// three to use for small integers such as Orientation.
    public var unsignedIntegers: [UInt32]? {
        switch self {
        case .bytes(let values): values.map(UInt32.init)
        case .shorts(let values): values.map(UInt32.init)
        case .longs(let values): values
        default: nil
        }
    }

    public var text: String? {
        if case .ascii(let text) = self { return text }
        return nil
    }

    /// RATIONAL values, or SRATIONAL values none of which is negative: some phones write GPS
    /// coordinates as SRATIONAL although the standard says RATIONAL.
    public var unsignedRationals: [ExifRational]? {
        switch self {
        case .rationals(let values):
            return values
        case .signedRationals(let values) where values.allSatisfy({ $0.numerator >= 0 && $0.denominator >= 0 }):
            return values.map { ExifRational(UInt32($0.numerator), UInt32($0.denominator)) }
        default:
            return nil
        }
    }
}

extension ExifValue {
    /// TIFF field types (TIFF 6.0 §2, "Types").
    enum Format: UInt16 {
        case byte = 1
        case ascii, short, long, rational, signedByte, undefined
        case signedShort, signedLong, signedRational, float, double
    }

    /// Decodes `components` values of `format` from `bytes`, reading no further than
    /// `bytes.count` even when `components` claims more (libexif keeps both numbers and a
    /// corrupt file can make them disagree).
    init(format rawFormat: UInt16, components: Int, bytes: [UInt8], bigEndian: Bool) {
        let reader = ByteOrderReader(bytes: bytes, bigEndian: bigEndian)
        func count(ofSize size: Int) -> Int { max(0, min(components, bytes.count / size)) }

        switch Format(rawValue: rawFormat) {
        case .byte:
            self = .bytes(Array(bytes.prefix(count(ofSize: 1))))
        case .undefined:
            self = .undefined(Array(bytes.prefix(count(ofSize: 1))))
        case .ascii:
            let characters = bytes.prefix(count(ofSize: 1)).prefix { $0 != 0 }
            self = .ascii(String(decoding: characters, as: UTF8.self))
        case .short:
            self = .shorts((0..<count(ofSize: 2)).map { reader.uint16(at: $0 * 2) })
        case .long:
            self = .longs((0..<count(ofSize: 4)).map { reader.uint32(at: $0 * 4) })
        case .rational:
            self = .rationals(
                (0..<count(ofSize: 8)).map {
                    ExifRational(reader.uint32(at: $0 * 8), reader.uint32(at: $0 * 8 + 4))
                })
        case .signedRational:
            self = .signedRationals(
                (0..<count(ofSize: 8)).map {
                    ExifSignedRational(
                        Int32(bitPattern: reader.uint32(at: $0 * 8)),
                        Int32(bitPattern: reader.uint32(at: $0 * 8 + 4))
                    )
                })
        case .signedByte, .signedShort, .signedLong, .float, .double, nil:
            self = .other(format: rawFormat, bytes: bytes)
        }
    }
}

/// Reads integers at offsets the caller has already bounds-checked against `bytes.count`.
private struct ByteOrderReader {
    var bytes: [UInt8]
    var bigEndian: Bool

    func uint16(at offset: Int) -> UInt16 {
        let (a, b) = (UInt16(bytes[offset]), UInt16(bytes[offset + 1]))
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func uint32(at offset: Int) -> UInt32 {
        let first = UInt32(uint16(at: offset))
        let second = UInt32(uint16(at: offset + 2))
        return bigEndian ? first << 16 | second : second << 16 | first
    }
}

extension ExifValue: CustomStringConvertible {
    /// Short enough for a log line: long arrays and byte blobs are abbreviated.
    public var description: String {
        func list(_ items: [some CustomStringConvertible]) -> String {
            let shown = items.prefix(8).map(\.description).joined(separator: ", ")
            return items.count > 8 ? "[\(shown), … (\(items.count) values)]" : "[\(shown)]"
        }
        switch self {
        case .ascii(let text): return "\"\(text.count > 64 ? text.prefix(64) + "…" : text)\""
        case .bytes(let values): return "BYTE " + list(values)
        case .shorts(let values): return "SHORT " + list(values)
        case .longs(let values): return "LONG " + list(values)
        case .rationals(let values): return "RATIONAL " + list(values)
        case .signedRationals(let values): return "SRATIONAL " + list(values)
        case .undefined(let bytes): return "UNDEFINED (\(bytes.count) bytes)"
        case .other(let format, let bytes): return "format \(format) (\(bytes.count) bytes)"
        }
    }
}
