import Zlib

/// `com.apple.photo`: Apple Photos' own edits. The data is raw DEFLATE of UTF-8 JSON:
/// `{metadata: {masterWidth, masterHeight, orientation}, versionInfo, formatVersion,
/// adjustments: [{identifier, settings, enabled, formatVersion}]}`.
///
/// darkroom reads it as data and keeps every adjustment's JSON byte for byte, known or not;
/// which of them it reproduces is `ApplePhotoPlan`'s decision.
public enum ApplePhotoFormat {
    public static let identifier = "com.apple.photo"
    /// The largest compressed data read (Apple's are under 4 KiB; a light map makes them grow).
    public static let maxDataBytes = 256 << 10
    /// The largest JSON inflated: anything bigger is refused as a DEFLATE bomb.
    public static let maxInflatedBytes = 1 << 20
    /// Photos writes one entry per kind of adjustment, a few dozen at most.
    public static let maxAdjustments = 256
    /// Arrays and objects nest at most this deep (settings hold a level or three).
    public static let maxNesting = 32

    /// What `darkroom history` and the dashboard say of an Apple layer: its adjustments by name,
    /// disabled ones marked, and the orientation it is shown in (`Crop, Effect 3DDramaticCool,
    /// orientation 6`); nil for data that does not decode.
    public static func summary(of data: [UInt8]) -> String? {
        guard let edit = try? decode(data) else { return nil }
        var parts = edit.adjustments.map { $0.enabled ? $0.name : "\($0.name) (disabled)" }
        if parts.isEmpty { parts = ["no adjustments"] }
        if edit.orientation > 1 { parts.append("orientation \(edit.orientation)") }
        return parts.joined(separator: ", ")
    }

    /// The edit `data` describes. Bad data is an `AdjustmentError` naming the problem.
    public static func decode(_ data: [UInt8]) throws -> ApplePhotoEdit {
        guard data.count <= maxDataBytes else {
            throw AdjustmentError(
                .dataTooLarge, "\(identifier) data is \(data.count) bytes; the limit is \(maxDataBytes)")
        }
        let json: [UInt8]
        do {
            json = try RawDeflate.inflate(data, maxOutput: maxInflatedBytes)
        } catch {
            let code: AdjustmentError.Code = error.code == .tooLarge ? .dataTooLarge : .malformedData
            throw AdjustmentError(code, "\(identifier) data is not raw DEFLATE of JSON: \(error)")
        }
        return try ApplePhotoEdit(json: json)
    }
}

/// One decoded `com.apple.photo` edit.
public struct ApplePhotoEdit: Sendable, Equatable {
    /// The original's size as Photos saw it (for a HEIF, after its own rotation) and the EXIF
    /// orientation (1–8; 0 when Photos did not say) the result is shown in.
    public var masterWidth: Int
    public var masterHeight: Int
    public var orientation: Int
    /// The JSON's own `formatVersion` (1 in every file seen).
    public var formatVersion: Int?
    public var adjustments: [ApplePhotoAdjustment]
    /// The inflated JSON, byte for byte.
    public var json: [UInt8]

    init(json: [UInt8]) throws {
        if let (depth, offset) = JSONValue.nesting(of: json, over: ApplePhotoFormat.maxNesting) {
            throw Self.error(
                "nests \(depth) levels deep at byte \(offset); the limit is \(ApplePhotoFormat.maxNesting)")
        }
        let spans = try AdjustmentSpans.find(in: json)
        let value: JSONValue
        do {
            value = try JSONValue.parse(json)
        } catch {
            throw Self.error("is not JSON (\(error))")
        }
        guard case .object(let top) = value else { throw Self.error("is \(value.kind), not an object") }
        guard case .object(let metadata)? = top["metadata"] else { throw Self.error("has no metadata object") }
        masterWidth = try Self.count(metadata["masterWidth"], "metadata.masterWidth")
        masterHeight = try Self.count(metadata["masterHeight"], "metadata.masterHeight")
        orientation = try Self.count(metadata["orientation"] ?? .number(0), "metadata.orientation")
        guard orientation <= 8 else { throw Self.error("metadata.orientation \(orientation) is not 0…8") }
        if case .number(let version)? = top["formatVersion"] { formatVersion = Int(exactly: version) }
        guard case .array(let entries)? = top["adjustments"] else { throw Self.error("has no adjustments array") }
        guard entries.count <= ApplePhotoFormat.maxAdjustments else {
            throw AdjustmentError(
                .dataTooLarge,
                "\(ApplePhotoFormat.identifier) data lists \(entries.count) adjustments; the limit is \(ApplePhotoFormat.maxAdjustments)"
            )
        }
        guard entries.count == spans.count else {
            throw Self.error("has an adjustments array darkroom cannot delimit (its key is spelt with escapes?)")
        }
        adjustments = try zip(entries, spans).enumerated().map { index, pair in
            try ApplePhotoAdjustment(pair.0, raw: Array(json[pair.1]), index: index)
        }
        self.json = json
    }

    static func count(_ value: JSONValue?, _ name: String) throws -> Int {
        guard case .number(let number)? = value, let count = Int(exactly: number), count >= 0, count <= 1 << 20 else {
            throw error("\(name) is \(value?.kind ?? "missing"), not a whole number 0…\(1 << 20)")
        }
        return count
    }

    static func error(_ problem: String) -> AdjustmentError {
        AdjustmentError(.malformedData, "\(ApplePhotoFormat.identifier) JSON \(problem)")
    }
}

/// One entry of `adjustments`.
public struct ApplePhotoAdjustment: Sendable, Equatable {
    public var identifier: String
    /// Missing means enabled (Photos leaves it out of `LivePhotoKeyFrame`); `1`/`0` count too.
    public var enabled: Bool
    public var formatVersion: Int?
    /// The entry's JSON exactly as it stands in the data.
    public var raw: [UInt8]
    let settings: [String: JSONValue]

    init(_ value: JSONValue, raw: [UInt8], index: Int) throws {
        guard case .object(let entry) = value else {
            throw ApplePhotoEdit.error("adjustments[\(index)] is \(value.kind), not an object")
        }
        guard case .string(let identifier)? = entry["identifier"], !identifier.isEmpty else {
            throw ApplePhotoEdit.error("adjustments[\(index)] has no identifier")
        }
        self.identifier = identifier
        switch entry["enabled"] {
        case nil, .null: enabled = true
        case .bool(let flag)?: enabled = flag
        case .number(let number)?: enabled = number != 0
        case let other?:
            throw ApplePhotoEdit.error("adjustments[\(index)] (\(identifier)) enabled is \(other.kind)")
        }
        if case .number(let version)? = entry["formatVersion"] { formatVersion = Int(exactly: version) }
        if case .object(let settings)? = entry["settings"] { self.settings = settings } else { settings = [:] }
        self.raw = raw
    }

    /// How a message names it: the identifier, with the effect or filter for those that have one
    /// (`Effect 3DDramaticCool`).
    public var name: String {
        for key in ["effectName", "filterName", "name"] {
            if case .string(let detail)? = settings[key], !detail.isEmpty { return "\(identifier) \(detail)" }
        }
        return identifier
    }

    /// Whether `settings` has `key`, whatever its value.
    public func has(_ key: String) -> Bool { settings[key] != nil }

    /// A number in `settings`, when it is one.
    public func number(_ key: String) -> Double? {
        if case .number(let value)? = settings[key] { return value }
        return nil
    }
}

/// Where each element of the top-level `adjustments` array lies in the JSON, so an entry is
/// kept as written, whatever darkroom understands of it. A scan of the bytes that knows
/// strings and brackets only; the JSON parser judges validity.
enum AdjustmentSpans {
    static func find(in json: [UInt8]) throws -> [Range<Int>] {
        var depth = 0
        var inString = false
        var escaped = false
        var stringStart = 0
        var lastKey: ArraySlice<UInt8> = []
        var inAdjustments = false
        var found = false
        var elementStart: Int?
        var spans: [Range<Int>] = []
        for (offset, byte) in json.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 1 { lastKey = json[(stringStart + 1)..<offset] }
                }
                continue
            }
            let isSpace = byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
            if inAdjustments, depth == 2, elementStart == nil, !isSpace, byte != UInt8(ascii: ","),
                byte != UInt8(ascii: "]")
            {
                elementStart = offset
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                stringStart = offset
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if depth == 1, byte == UInt8(ascii: "["), lastKey.elementsEqual("adjustments".utf8) {
                    guard !found else { throw ApplePhotoEdit.error("has two adjustments arrays") }
                    found = true
                    inAdjustments = true
                }
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if inAdjustments, depth == 1 {
                    if let start = elementStart { spans.append(start..<trimmedEnd(json, offset)) }
                    elementStart = nil
                    inAdjustments = false
                }
            case UInt8(ascii: ",") where inAdjustments && depth == 2:
                if let start = elementStart { spans.append(start..<trimmedEnd(json, offset)) }
                elementStart = nil
            case UInt8(ascii: ":") where depth == 1:
                break
            default:
                if depth == 1, !isSpace, byte != UInt8(ascii: ",") { lastKey = [] }
            }
            if spans.count > ApplePhotoFormat.maxAdjustments {
                throw AdjustmentError(
                    .dataTooLarge,
                    "\(ApplePhotoFormat.identifier) data lists more than \(ApplePhotoFormat.maxAdjustments) adjustments"
                )
            }
        }
        return spans
    }

    /// `end` moved back over whitespace.
    private static func trimmedEnd(_ json: [UInt8], _ end: Int) -> Int {
        var end = end
        while end > 0, [0x20, 0x09, 0x0A, 0x0D].contains(json[end - 1]) { end -= 1 }
        return end
    }
}
