import Foundation
internal import LibPQ

/// A warning as `darkroom.jobs.warnings` and `darkroom.adjustments.warnings` keep it: something
/// a render met that did not spoil its pixels (an original without its EOI marker, ...).
/// `code` is stable and is what operators query for; the rest is context.
public struct RecordedWarning: Sendable, Hashable, Codable {
    public var code: String
    public var message: String
    /// The object it is about (a storage key), when it is about a file.
    public var object: String?
    public var byteOffset: Int?
    public var byteCount: Int?

    public init(code: String, message: String, object: String? = nil, byteOffset: Int? = nil, byteCount: Int? = nil) {
        self.code = code
        self.message = message
        self.object = object
        self.byteOffset = byteOffset
        self.byteCount = byteCount
    }

    enum CodingKeys: String, CodingKey {
        case code, message, object
        case byteOffset = "byte_offset"
        case byteCount = "byte_count"
    }

    /// The `layer_warnings` argument of `darkroom.complete_job`: one array per layer.
    static func json(perLayer warnings: [[RecordedWarning]]) -> String { encoded(warnings) }

    /// The `warnings` argument of `darkroom.complete_renditions_job`: one array.
    static func json(_ warnings: [RecordedWarning]) -> String { encoded(warnings) }

    private static func encoded(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Strings and integers always encode.
        return String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self)
    }
}

/// A `warnings` column, read whole.
struct RecordedWarnings: PostgresDecodable {
    var list: [RecordedWarning]

    init(postgresValue value: PostgresValue) throws(PostgresDecodingError.Reason) {
        let text = try String(postgresValue: value)
        do {
            list = try JSONDecoder().decode([RecordedWarning].self, from: Data(text.utf8))
        } catch {
            throw .malformed("not an array of warnings: \(error)")
        }
    }
}
