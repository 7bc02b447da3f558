import GainMaps

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The capture date and position an image sequence (a HEIF `msf1` or AVIF `avis` file) keeps
/// in its movie box, `moov`, where EXIF and XMP have none: QuickTime's metadata keys
/// (`com.apple.quicktime.creationdate`, `com.apple.quicktime.location.ISO6709`), the user data's
/// `©day` and `©xyz`, and the movie header's creation time (`mvhd`, UTC). libheif 1.19.7 reads
/// no sequence, so these boxes are walked here, every size checked against what holds it.
public struct MovieMetadata: Sendable, Equatable {
    public var creationDate: Date?
    /// What gave `creationDate`: `QuickTime com.apple.quicktime.creationdate`, `QuickTime ©day`
    /// or `QuickTime mvhd`.
    public var dateSource: String?
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    /// Values present but unreadable, in words that quote at most 64 of their bytes.
    public var warnings: [String] = []

    /// Keys, metadata items and boxes looked at in one container.
    static let maxEntries = 1_024
    /// A date or position text longer than this is no date or position.
    static let maxTextBytes = 256

    public init() {}

    /// Reads `movieBox`: the whole `moov` box, header included (its size is bounded by whoever
    /// read it from the file: `HEIFMovieBox`). Never throws: what cannot be read is a warning.
    public static func read(movieBox: [UInt8]) -> MovieMetadata {
        var metadata = MovieMetadata()
        let reader = BoxReader(movieBox)
        guard let movie = reader.boxes(in: 0..<movieBox.count).first(where: { $0.type == "moov" }) else {
            return metadata
        }
        let children = reader.boxes(in: movie.payload)
        var dates: [(source: String, text: String)] = []
        var positions: [(source: String, text: String)] = []
        if let meta = children.first(where: { $0.type == "meta" }) {
            for (key, value) in reader.quickTimeItems(in: meta) {
                if key == "com.apple.quicktime.creationdate" { dates.append(("QuickTime \(key)", value)) }
                if key == "com.apple.quicktime.location.ISO6709" { positions.append(("QuickTime \(key)", value)) }
            }
        }
        if let userData = children.first(where: { $0.type == "udta" }) {
            for box in reader.boxes(in: userData.payload) {
                if box.type == "©day", let text = reader.userDataText(box) { dates.append(("QuickTime ©day", text)) }
                if box.type == "©xyz", let text = reader.userDataText(box) {
                    positions.append(("QuickTime ©xyz", text))
                }
            }
        }
        for (source, text) in dates where metadata.creationDate == nil {
            if let date = ExifDateTime.parse(text, offset: nil) {
                (metadata.creationDate, metadata.dateSource) = (date, source)
            } else {
                metadata.warnings.append(
                    "\(source) \(text.prefix(64).debugDescription) is not a date and time; ignored.")
            }
        }
        if metadata.creationDate == nil, let header = children.first(where: { $0.type == "mvhd" }) {
            switch reader.movieCreationTime(header) {
            case .some(let date?): (metadata.creationDate, metadata.dateSource) = (date, "QuickTime mvhd")
            case .some(nil): break  // 0: not set
            case nil: metadata.warnings.append("QuickTime mvhd's creation time is out of range; ignored.")
            }
        }
        for (source, text) in positions where metadata.latitude == nil {
            if let position = iso6709Position(text) {
                (metadata.latitude, metadata.longitude, metadata.altitude) = position
            } else {
                metadata.warnings.append(
                    "\(source) \(text.prefix(64).debugDescription) is not an ISO 6709 position; location ignored.")
            }
        }
        return metadata
    }

    /// `±DD.DDDD±DDD.DDDD[±AAA.AAA][CRS]/`, decimal degrees (what phones write); the
    /// degrees-and-minutes forms are refused.
    static func iso6709Position(_ text: String) -> (Double, Double, Double?)? {
        var numbers: [Substring] = []
        var rest = Substring(text)
        while let sign = rest.first, sign == "+" || sign == "-", numbers.count < 3 {
            let digits = rest.dropFirst().prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !digits.isEmpty else { return nil }
            numbers.append(rest.prefix(1 + digits.count))
            rest = rest.dropFirst(1 + digits.count)
        }
        guard numbers.count >= 2, rest.hasSuffix("/") || rest.isEmpty,
            numbers[0].split(separator: ".").first?.count == 3, numbers[1].split(separator: ".").first?.count == 4,
            let latitude = Double(numbers[0]), let longitude = Double(numbers[1]),
            abs(latitude) <= 90, abs(longitude) <= 180
        else { return nil }
        return (latitude, longitude, numbers.count == 3 ? Double(numbers[2]) : nil)
    }
}

/// Boxes of an ISO BMFF byte range: each box's type and its payload's range, within its holder.
private struct BoxReader {
    struct Box {
        /// Its four bytes, as Latin-1 (`©day`).
        var type: String
        var code: UInt32
        var payload: Range<Int>
    }

    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The boxes one after another in `range`, up to `MovieMetadata.maxEntries`; a box whose
    /// size overruns its holder ends the walk.
    func boxes(in range: Range<Int>) -> [Box] {
        var found: [Box] = []
        var offset = range.lowerBound
        while found.count < MovieMetadata.maxEntries,
            let box = bytes.withUnsafeBytes({ ISOBox.at(offset, in: $0, end: range.upperBound) })
        {
            let type = String(String.UnicodeScalarView(bytes[(offset + 4)..<(offset + 8)].map { Unicode.Scalar($0) }))
            found.append(Box(type: type, code: box.type, payload: box.payload))
            offset = box.end
        }
        return found
    }

    /// The items of a QuickTime metadata box (`meta` with an `mdta` handler): each key's name
    /// and its value when it is text (`data` type 1, UTF-8).
    func quickTimeItems(in meta: Box) -> [(String, String)] {
        // QuickTime's `meta` has no version and flags; ISO's does.
        var payload = meta.payload
        let startsWithHandler =
            payload.count >= 8 && bytes[(payload.lowerBound + 4)..<(payload.lowerBound + 8)].elementsEqual("hdlr".utf8)
        if !startsWithHandler { payload = min(payload.lowerBound + 4, payload.upperBound)..<payload.upperBound }
        let children = boxes(in: payload)
        guard let handler = children.first(where: { $0.type == "hdlr" }), handler.payload.count >= 12,
            bytes[(handler.payload.lowerBound + 8)..<(handler.payload.lowerBound + 12)].elementsEqual("mdta".utf8),
            let keysBox = children.first(where: { $0.type == "keys" }), keysBox.payload.count >= 8,
            let list = children.first(where: { $0.type == "ilst" })
        else { return [] }
        var keys: [String] = []
        var offset = keysBox.payload.lowerBound + 8
        let count = min(Int(uint32(at: keysBox.payload.lowerBound + 4)), MovieMetadata.maxEntries)
        while keys.count < count, offset + 8 <= keysBox.payload.upperBound {
            let size = Int(uint32(at: offset))
            guard size >= 8, size <= keysBox.payload.upperBound - offset else { break }
            keys.append(String(decoding: bytes[(offset + 8)..<(offset + size)].prefix(256), as: UTF8.self))
            offset += size
        }
        return boxes(in: list.payload).compactMap { item in
            // An item's type is its key's index, from 1.
            let index = Int(item.code)
            guard index >= 1, index <= keys.count,
                let data = boxes(in: item.payload).first(where: { $0.type == "data" }), data.payload.count >= 8,
                uint32(at: data.payload.lowerBound) == 1
            else { return nil }
            return (keys[index - 1], text(data.payload.lowerBound + 8..<data.payload.upperBound))
        }
    }

    /// A user data text (`©day`, `©xyz`): QuickTime's 16-bit length and language, then the text.
    func userDataText(_ box: Box) -> String? {
        guard box.payload.count >= 4 else { return nil }
        let length = Int(bytes[box.payload.lowerBound]) << 8 | Int(bytes[box.payload.lowerBound + 1])
        let start = box.payload.lowerBound + 4
        guard length <= box.payload.upperBound - start else { return nil }
        return text(start..<(start + length))
    }

    /// `mvhd`'s creation time: nil when out of range, .some(nil) when 0 (not set).
    func movieCreationTime(_ box: Box) -> Date?? {
        let start = box.payload.lowerBound
        guard box.payload.count >= 8 else { return nil }
        let seconds: UInt64
        switch bytes[start] {
        case 0: seconds = UInt64(uint32(at: start + 4))
        case 1 where box.payload.count >= 12: seconds = uint64(at: start + 4)
        default: return nil
        }
        if seconds == 0 { return .some(nil) }
        // Seconds since 1904-01-01 UTC; up to the end of year 9999.
        let since1904To1970: UInt64 = 2_082_844_800
        guard seconds <= 253_402_300_799 + since1904To1970 else { return nil }
        return .some(Date(timeIntervalSince1970: TimeInterval(Int64(seconds) - Int64(since1904To1970))))
    }

    private func text(_ range: Range<Int>) -> String {
        let kept = bytes[range].prefix(MovieMetadata.maxTextBytes + 1)
        return String(decoding: kept.prefix { $0 != 0 }, as: UTF8.self)
    }

    private func uint32(at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private func uint64(at offset: Int) -> UInt64 {
        bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
