import Foundation

/// Reads the few flat documents S3 answers with (error, listings, upload ids) by element
/// name. Not a general XML parser: S3's answers have no attributes darkroom needs, no CDATA
/// and no nesting of same-named elements. Whatever the bytes, it returns nil or strings.
public struct S3XML: Sendable {
    let text: Substring

    public init(_ bytes: [UInt8]) { text = Substring(String(decoding: bytes, as: UTF8.self)) }
    init(_ text: Substring) { self.text = text }

    /// The first `<name>…</name>`'s text, entities decoded.
    public func value(of name: String) -> String? {
        elements(named: name).first.map { Self.decodeEntities($0.text) }
    }

    /// Every `<name>…</name>` in order, as documents of their own.
    public func elements(named name: String) -> [S3XML] {
        let open = "<\(name)>"
        let close = "</\(name)>"
        var found: [S3XML] = []
        var rest = text[...]
        while let start = rest.range(of: open), let end = rest[start.upperBound...].range(of: close) {
            found.append(S3XML(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return found
    }

    static func decodeEntities(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&#34;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    package static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
