/// HTML built with string interpolation that escapes every value unless it is itself `HTML`,
/// so text from the database or a URL can never become markup.
public struct HTML: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public private(set) var markup: String

    public init(stringLiteral value: String) { markup = value }

    public init(stringInterpolation: Interpolation) { markup = stringInterpolation.markup }

    /// Markup assembled elsewhere and already safe (only use on literals).
    init(trusted markup: String) { self.markup = markup }

    public var description: String { markup }

    /// The fragments with `separator` (escaped) between them.
    public static func joined(_ fragments: [HTML], separator: String) -> HTML {
        HTML(trusted: fragments.map(\.markup).joined(separator: escape(separator)))
    }

    public struct Interpolation: StringInterpolationProtocol {
        var markup = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            markup.reserveCapacity(literalCapacity * 2)
        }

        public mutating func appendLiteral(_ literal: String) { markup += literal }

        public mutating func appendInterpolation(_ html: HTML) { markup += html.markup }

        public mutating func appendInterpolation(_ fragments: [HTML]) {
            for fragment in fragments { markup += fragment.markup }
        }

        public mutating func appendInterpolation<T>(_ value: T) { markup += HTML.escape(String(describing: value)) }

        public mutating func appendInterpolation<T>(_ value: T?) {
            if let value { markup += HTML.escape(String(describing: value)) }
        }
    }

    /// Escapes the five characters that matter in text and in quoted attribute values.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

/// Percent-encodes a path segment or query value (RFC 3986 unreserved characters stay; a '/'
/// becomes %2F, so a name with one stays one path segment: `Parameters.decoded` reads it back).
func urlComponent(_ text: String) -> String {
    var encoded = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            encoded.append(Character(Unicode.Scalar(byte)))
        default:
            encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        }
    }
    return encoded
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
