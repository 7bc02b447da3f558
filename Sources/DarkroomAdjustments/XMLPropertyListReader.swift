/// Apple's XML property list ("<plist version="1.0">…"), the form of an `.AAE` sidecar, read
/// as data in pure Swift: no XML library, no DTD, no entity but the five predefined ones and
/// character references, so nothing in the file is fetched, expanded or instantiated.
///
/// Bounded like `BinaryPropertyList`: at most `maxBytes` of input, `maxDepth` nested
/// containers and `maxValues` values; work is linear in the input.
public enum XMLPropertyList {
    /// Far above any sidecar (Apple's are a few KiB; the adjustment data inside is compressed).
    public static let maxBytes = 1 << 20
    public static let maxDepth = 64
    public static let maxValues = 1 << 16

    /// The top value of `bytes`. Hostile input is an `AdjustmentError(.malformedData)` naming
    /// the byte offset; more than `maxBytes` is `.dataTooLarge`.
    public static func decode(_ bytes: [UInt8]) throws -> PropertyListValue {
        guard bytes.count <= maxBytes else {
            throw AdjustmentError(.dataTooLarge, "XML plist is \(bytes.count) bytes; the limit is \(maxBytes)")
        }
        var reader = XMLPropertyListReader(bytes: bytes)
        return try reader.document()
    }
}

struct XMLPropertyListReader {
    let bytes: [UInt8]
    var position = 0
    var values = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func document() throws -> PropertyListValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        try skipProlog()
        let plist = try startTag()
        guard plist.name == "plist", !plist.selfClosing else {
            throw error("the top element is <\(plist.name)>, not <plist>", at: plist.offset)
        }
        let value = try self.value(depth: 1)
        try skipSpaceAndComments()
        try endTag("plist")
        try skipSpaceAndComments()
        guard position == bytes.count else { throw error("content after </plist>", at: position) }
        return value
    }

    // MARK: Values

    private mutating func value(depth: Int) throws -> PropertyListValue {
        try skipSpaceAndComments()
        let tag = try startTag()
        guard depth <= XMLPropertyList.maxDepth else {
            throw error("containers nest more than \(XMLPropertyList.maxDepth) deep", at: tag.offset)
        }
        values += 1
        guard values <= XMLPropertyList.maxValues else {
            throw error("holds more than \(XMLPropertyList.maxValues) values", at: tag.offset)
        }
        switch tag.name {
        case "dict":
            return .dictionary(try dictionary(tag, depth: depth))
        case "array":
            var elements: [PropertyListValue] = []
            guard !tag.selfClosing else { return .array([]) }
            while true {
                try skipSpaceAndComments()
                if peekEndTag() { break }
                elements.append(try value(depth: depth + 1))
            }
            try endTag("array")
            return .array(elements)
        case "true", "false":
            if !tag.selfClosing {
                guard try text(closing: tag.name).isEmpty else {
                    throw error("<\(tag.name)> must be empty", at: tag.offset)
                }
            }
            return .bool(tag.name == "true")
        case "string":
            return .string(tag.selfClosing ? "" : try text(closing: "string"))
        case "integer":
            let text = try self.text(closing: tag.name, tag)
            guard let value = Int64(text.trimmed) else {
                throw error("<integer> \(text.quotedForMessage) is not a 64-bit integer", at: tag.offset)
            }
            return .integer(value)
        case "real":
            let text = try self.text(closing: tag.name, tag)
            guard let value = Double(text.trimmed) else {
                throw error("<real> \(text.quotedForMessage) is not a number", at: tag.offset)
            }
            return .real(value)
        case "data":
            let text = try self.text(closing: tag.name, tag)
            guard let data = Base64.decode(text) else {
                throw error("<data> is not base64", at: tag.offset)
            }
            return .data(data)
        case "date":
            let text = try self.text(closing: tag.name, tag)
            guard let seconds = ISODate.secondsSince2001(text.trimmed) else {
                throw error("<date> \(text.quotedForMessage) is not YYYY-MM-DDThh:mm:ssZ", at: tag.offset)
            }
            return .date(seconds)
        default:
            throw error("<\(tag.name)> is not a property-list element", at: tag.offset)
        }
    }

    private mutating func dictionary(_ tag: Tag, depth: Int) throws -> PropertyListDictionary {
        guard !tag.selfClosing else { return PropertyListDictionary() }
        var keys: [String] = []
        var entries: [PropertyListValue] = []
        var seen = Set<String>()
        while true {
            try skipSpaceAndComments()
            if peekEndTag() { break }
            let keyTag = try startTag()
            guard keyTag.name == "key" else {
                throw error("a <dict> entry starts with <\(keyTag.name)>, not <key>", at: keyTag.offset)
            }
            let key = keyTag.selfClosing ? "" : try text(closing: "key")
            guard seen.insert(key).inserted else {
                throw error("<dict> has the key \(key.quotedForMessage) twice", at: keyTag.offset)
            }
            keys.append(key)
            entries.append(try value(depth: depth + 1))
        }
        try endTag("dict")
        return PropertyListDictionary(uniqueKeys: keys, values: entries)
    }

    // MARK: Markup

    struct Tag {
        var name: String
        var selfClosing: Bool
        var offset: Int
    }

    /// `<name attributes…>` or `<name …/>`; attributes are skipped (only `version` is ever there).
    private mutating func startTag() throws -> Tag {
        let offset = position
        guard byte(at: position) == UInt8(ascii: "<"), let first = byte(at: position + 1), Self.isNameStart(first)
        else {
            throw error(position >= bytes.count ? "ends before its value" : "expected an element", at: position)
        }
        position += 1
        let name = self.name()
        guard skipPastUnquoted(anyOf: [UInt8(ascii: ">"), UInt8(ascii: "<")]) == UInt8(ascii: ">") else {
            throw error("the tag <\(name)> is not closed", at: offset)
        }
        let selfClosing = bytes[position - 2] == UInt8(ascii: "/")
        return Tag(name: name, selfClosing: selfClosing, offset: offset)
    }

    /// Moves past the first of `stops` that is not inside a quoted attribute value and returns it,
    /// or returns nil at the end of the input.
    private mutating func skipPastUnquoted(anyOf stops: [UInt8]) -> UInt8? {
        var quote: UInt8?
        while let byte = byte(at: position) {
            position += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if stops.contains(byte) {
                return byte
            }
        }
        return nil
    }

    private func peekEndTag() -> Bool {
        byte(at: position) == UInt8(ascii: "<") && byte(at: position + 1) == UInt8(ascii: "/")
    }

    private mutating func endTag(_ expected: String) throws {
        let offset = position
        guard peekEndTag() else { throw error("expected </\(expected)>", at: offset) }
        position += 2
        let name = self.name()
        skipSpace()
        guard name == expected, byte(at: position) == UInt8(ascii: ">") else {
            throw error("expected </\(expected)>, found </\(name)", at: offset)
        }
        position += 1
    }

    private mutating func name() -> String {
        let start = position
        while let byte = byte(at: position), Self.isNameByte(byte) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// The character data up to `</closing>`, with references resolved; comments skipped,
    /// CDATA sections taken as they are. Any other markup inside is refused.
    private mutating func text(closing: String, _ tag: Tag? = nil) throws -> String {
        if let tag, tag.selfClosing { return "" }
        var utf8: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") {
                if starts(with: "<!--") {
                    try skipComment()
                } else if starts(with: "<![CDATA[") {
                    let start = position + 9
                    guard let end = find("]]>", from: start) else {
                        throw error("a CDATA section is not closed", at: position)
                    }
                    utf8.append(contentsOf: bytes[start..<end])
                    position = end + 3
                } else {
                    try endTag(closing)
                    guard let text = String(validating: utf8, as: UTF8.self) else {
                        throw error("the text of <\(closing)> is not UTF-8", at: position)
                    }
                    return text
                }
            } else if byte == UInt8(ascii: "&") {
                utf8.append(contentsOf: try reference())
            } else {
                utf8.append(byte)
                position += 1
            }
        }
        throw error("<\(closing)> is not closed", at: position)
    }

    /// `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` `&#N;` `&#xN;`; anything else is refused (no DTD
    /// may define more).
    private mutating func reference() throws -> [UInt8] {
        let offset = position
        guard let end = find(";", from: position, within: 12) else {
            throw error("an & is not a character reference", at: offset)
        }
        let body = String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
        position = end + 1
        switch body {
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "amp": return [UInt8(ascii: "&")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        default:
            let number: UInt32? =
                body.hasPrefix("#x")
                ? UInt32(body.dropFirst(2), radix: 16)
                : body.hasPrefix("#") ? UInt32(body.dropFirst(), radix: 10) : nil
            guard let number, number != 0, let scalar = Unicode.Scalar(number) else {
                throw error("&\(body); is not a character darkroom reads (no entities beyond XML's five)", at: offset)
            }
            return Array(String(Character(scalar)).utf8)
        }
    }

    // MARK: Prolog, space, comments

    /// The XML declaration, comments, processing instructions and a DOCTYPE without an internal
    /// subset (Apple's names its public DTD, which is never fetched).
    private mutating func skipProlog() throws {
        while true {
            skipSpace()
            if starts(with: "<?") {
                guard let end = find("?>", from: position) else {
                    throw error("a processing instruction is not closed", at: position)
                }
                position = end + 2
            } else if starts(with: "<!--") {
                try skipComment()
            } else if starts(with: "<!DOCTYPE") {
                let offset = position
                switch skipPastUnquoted(anyOf: [UInt8(ascii: "["), UInt8(ascii: ">")]) {
                case UInt8(ascii: ">"):
                    break
                case UInt8(ascii: "["):
                    throw error("the DOCTYPE has an internal subset (entity definitions are refused)", at: offset)
                default:
                    throw error("the DOCTYPE is not closed", at: offset)
                }
            } else {
                return
            }
        }
    }

    private mutating func skipSpaceAndComments() throws {
        while true {
            skipSpace()
            guard starts(with: "<!--") else { return }
            try skipComment()
        }
    }

    private mutating func skipComment() throws {
        guard let end = find("-->", from: position + 4) else { throw error("a comment is not closed", at: position) }
        position = end + 3
    }

    private mutating func skipSpace() {
        while let byte = byte(at: position), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            position += 1
        }
    }

    // MARK: Bytes

    private func byte(at index: Int) -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        return (0..<count).allSatisfy { bytes[position + $0] == text.utf8Start[$0] }
    }

    /// Where `text` next starts at or after `start` (and before `start + within`).
    private func find(_ text: StaticString, from start: Int, within: Int = .max) -> Int? {
        let count = text.utf8CodeUnitCount
        guard start >= 0, bytes.count - count >= start else { return nil }
        let last = min(bytes.count - count, within == .max ? .max : start + within)
        var index = start
        while index <= last {
            if bytes[index] == text.utf8Start[0], (1..<count).allSatisfy({ bytes[index + $0] == text.utf8Start[$0] }) {
                return index
            }
            index += 1
        }
        return nil
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: ":")
    }

    private func error(_ problem: String, at offset: Int) -> AdjustmentError {
        AdjustmentError(.malformedData, "XML plist at byte \(offset): \(problem)")
    }
}

extension String {
    fileprivate var trimmed: Substring {
        let space: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !space($0) }), let last = lastIndex(where: { !space($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
