/// Finds properties of one namespace in an XMP packet without an XML parser: the prefix its
/// `xmlns:` declaration binds, then each property as an attribute (`p:Name="v"`) or an element
/// (`<p:Name>v</p:Name>`, or an `rdf:Seq` of `rdf:li` values). Linear scans of a bounded packet;
/// never a crash on text that is not XML (it simply finds nothing). No entity is ever expanded:
/// values come back as the bytes spell them. Shared by the gain-map XMP and `DarkroomMetadata`'s
/// capture date and location, which bound the packet before they scan it.
public struct XMPScanner {
    let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Every prefix declared for `namespace` (usually one).
    public func prefixes(of namespace: String) -> [String] {
        var found: [String] = []
        let declaration = Array("xmlns:".utf8)
        var index = 0
        while let start = find(declaration, from: index) {
            index = start + declaration.count
            var end = index
            while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
            let prefix = Array(bytes[index..<end])
            var cursor = skipSpace(from: end)
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") else { continue }
            cursor = skipSpace(from: cursor + 1)
            guard let (value, _) = quoted(at: cursor) else { continue }
            if value == Array(namespace.utf8), !prefix.isEmpty { found.append(String(decoding: prefix, as: UTF8.self)) }
        }
        return found
    }

    /// The values of `prefix:name`: one for an attribute or a plain element, one per `li` of a
    /// list; nil when the property is absent. At most `maxValues`; more is `nil` with `tooMany`.
    public func values(_ prefix: String, _ name: String) -> [String]? {
        let qualified = Array("\(prefix):\(name)".utf8)
        var index = 0
        while let start = find(qualified, from: index) {
            index = start + qualified.count
            let before = start > 0 ? bytes[start - 1] : 0
            let after = index < bytes.count ? bytes[index] : 0
            if isSpace(before), !isNameByte(after) {
                let cursor = skipSpace(from: index)
                guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") else { continue }
                if let (value, _) = quoted(at: skipSpace(from: cursor + 1)) {
                    return [String(decoding: value, as: UTF8.self)]
                }
            } else if before == UInt8(ascii: "<"), after == UInt8(ascii: ">") || isSpace(after) {
                guard let open = find([UInt8(ascii: ">")], from: index) else { return nil }
                guard bytes[open - 1] != UInt8(ascii: "/") else { return [""] }
                let closing = Array("</".utf8) + qualified
                guard let close = find(closing, from: open + 1) else { return nil }
                return elementValues(open + 1..<close)
            }
        }
        return nil
    }

    /// The text of each `li` element inside `range`, or the range's text when it has none.
    private func elementValues(_ range: Range<Int>) -> [String] {
        var values: [String] = []
        var index = range.lowerBound
        while let tag = find([UInt8(ascii: "<")], from: index), tag < range.upperBound {
            index = tag + 1
            var nameEnd = index
            while nameEnd < range.upperBound, isNameByte(bytes[nameEnd]) || bytes[nameEnd] == UInt8(ascii: ":") {
                nameEnd += 1
            }
            let tagName = bytes[index..<nameEnd]
            guard tagName.count >= 3, tagName.suffix(3).elementsEqual(":li".utf8) || tagName.elementsEqual("li".utf8)
            else { continue }
            guard let open = find([UInt8(ascii: ">")], from: nameEnd), open < range.upperBound,
                let close = find([UInt8(ascii: "<")], from: open + 1), close <= range.upperBound
            else { break }
            values.append(text(open + 1..<close))
            index = close
        }
        return values.isEmpty ? [text(range)] : values
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self).trimmingWhitespace()
    }

    private func quoted(at index: Int) -> ([UInt8], Int)? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            return nil
        }
        guard let end = find([bytes[index]], from: index + 1) else { return nil }
        return (Array(bytes[index + 1..<end]), end + 1)
    }

    public func find(_ pattern: [UInt8], from start: Int) -> Int? {
        guard let first = pattern.first, start >= 0 else { return nil }
        var index = start
        let last = bytes.count - pattern.count
        while index <= last {
            if bytes[index] == first {
                var match = true
                for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
                    match = false
                    break
                }
                if match { return index }
            }
            index += 1
        }
        return nil
    }

    private func skipSpace(from index: Int) -> Int {
        var index = index
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        return index
    }

    private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte >= 0x80
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
