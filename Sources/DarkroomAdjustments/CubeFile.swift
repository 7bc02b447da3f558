import EditVocabulary

/// Reads a `.cube` LUT (Adobe's Cube LUT Specification 1.0, as Resolve, Photoshop, Affinity
/// and darktable write it) into a `ColorLookupTable`. Bounded: it refuses files over
/// `maxBytes` and lines over `maxLineBytes` before reading them, and holds at most the one
/// table the size keyword announced.
///
/// Accepted: `TITLE "text"`, `LUT_3D_SIZE N` (2…65) or `LUT_1D_SIZE N` (2…65536),
/// `DOMAIN_MIN r g b` and `DOMAIN_MAX r g b` (default 0 0 0 and 1 1 1), Resolve's
/// `LUT_3D_INPUT_RANGE lo hi`/`LUT_1D_INPUT_RANGE lo hi` (the same domain for every channel),
/// comments (`#` to the end of the line), blank lines and `\n`, `\r\n` or `\r` line ends. Other
/// keywords before the table are skipped, as the specification asks of readers. Then exactly
/// one point per line, three finite numbers, red varying fastest in a 3D table.
public enum CubeFile {
    public static let maxBytes = 24 << 20
    public static let maxLineBytes = 1024
    public static let maxTitleBytes = 256

    public static func parse(_ bytes: [UInt8]) throws(CubeError) -> ColorLookupTable {
        guard bytes.count <= maxBytes else {
            throw CubeError(
                .tooLarge, "the file is \(bytes.count) bytes; a .cube LUT darkroom reads is at most \(maxBytes)")
        }
        var header = Header()
        var values: [Float] = []
        var expected = 0  // points, once the table has started
        var points = 0
        var lineNumber = 0
        var start = 0
        var tokens: [Range<Int>] = []  // one array for every line: a 33³ table has 35 937
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            lineNumber += 1
            guard end - start <= maxLineBytes else {
                throw CubeError(
                    .tooLarge, "the line is longer than \(maxLineBytes) bytes; no .cube keyword or point needs that",
                    line: lineNumber)
            }
            let line = Line(bytes: bytes, range: start..<end, number: lineNumber)
            // "\r\n" ends one line, not two.
            start = end + (end + 1 < bytes.count && bytes[end] == 0x0D && bytes[end + 1] == 0x0A ? 2 : 1)

            line.tokens(into: &tokens)
            guard let first = tokens.first else { continue }
            if line.isKeyword(first) {
                guard expected == 0 else {
                    throw CubeError(
                        .malformed, "keyword \(line.text(first)) after the table's first point; keywords come first",
                        line: lineNumber)
                }
                try header.read(line, tokens: tokens)
                continue
            }
            if expected == 0 {
                let (kind, size) = try header.table(line: lineNumber)
                expected = kind == .cube ? size * size * size : size
                values.reserveCapacity(expected * 3)
            }
            guard tokens.count == 3 else {
                throw CubeError(
                    .malformed, "a point is three numbers (red green blue); this line has \(tokens.count) fields",
                    line: lineNumber)
            }
            guard points < expected else {
                throw CubeError(
                    .longTable, "the table has more than the \(expected) points its size says", line: lineNumber)
            }
            for token in tokens { values.append(try line.number(token)) }
            points += 1
        }
        let (kind, size) = try header.table(line: 0)
        let needed = kind == .cube ? size * size * size : size
        guard points == needed else {
            throw CubeError(
                .shortTable,
                "the table has \(points) points; \(kind == .cube ? "LUT_3D_SIZE" : "LUT_1D_SIZE") \(size) "
                    + "needs \(needed)"
            )
        }
        let domainMin = header.domainMin ?? .black
        let domainMax = header.domainMax ?? .grey(1)
        for (channel, low, high) in [
            ("red", domainMin.red, domainMax.red), ("green", domainMin.green, domainMax.green),
            ("blue", domainMin.blue, domainMax.blue),
        ] where !(low < high) {
            throw CubeError(
                .badDomain, "the \(channel) domain runs from \(low) to \(high); DOMAIN_MIN must be below DOMAIN_MAX")
        }
        return ColorLookupTable(
            kind: kind, size: size, values: values, domainMin: domainMin, domainMax: domainMax, title: header.title)
    }

    /// The keywords before the table.
    struct Header {
        var title: String?
        var size: (kind: ColorLookupTable.Kind, size: Int)?
        var domainMin: RGBColor?
        var domainMax: RGBColor?

        mutating func read(_ line: Line, tokens: [Range<Int>]) throws(CubeError) {
            let keyword = line.text(tokens[0])
            switch keyword {
            case "TITLE":
                guard title == nil else { throw line.error(.malformed, "a second TITLE") }
                title = try line.title(after: tokens[0])
            case "LUT_3D_SIZE", "LUT_1D_SIZE":
                let kind: ColorLookupTable.Kind = keyword == "LUT_3D_SIZE" ? .cube : .curves
                if let size {
                    throw line.error(
                        size.kind == kind ? .malformed : .unsupported,
                        size.kind == kind
                            ? "a second \(keyword)"
                            : "both a 1D and a 3D table in one file; darkroom renders one table per filter")
                }
                let allowed = kind == .cube ? ColorLookupTable.cubeSizes : ColorLookupTable.curveSizes
                guard tokens.count == 2, let value = Int(line.text(tokens[1])), allowed.contains(value) else {
                    throw line.error(
                        .badSize,
                        "\(keyword) must be one whole number from \(allowed.lowerBound) to \(allowed.upperBound)")
                }
                size = (kind, value)
            case "DOMAIN_MIN", "DOMAIN_MAX":
                guard tokens.count == 4 else {
                    throw line.error(.malformed, "\(keyword) takes three numbers (red green blue)")
                }
                let color = RGBColor(
                    red: try line.number(tokens[1]), green: try line.number(tokens[2]),
                    blue: try line.number(tokens[3]))
                if keyword == "DOMAIN_MIN" { domainMin = color } else { domainMax = color }
            case "LUT_3D_INPUT_RANGE", "LUT_1D_INPUT_RANGE":
                guard tokens.count == 3 else {
                    throw line.error(.malformed, "\(keyword) takes two numbers (lowest and highest input)")
                }
                domainMin = .grey(try line.number(tokens[1]))
                domainMax = .grey(try line.number(tokens[2]))
            default:
                break  // another program's keyword
            }
        }

        func table(line: Int) throws(CubeError) -> (ColorLookupTable.Kind, Int) {
            guard let size else {
                throw CubeError(
                    .badSize, "no LUT_3D_SIZE or LUT_1D_SIZE before the table; a .cube file must say its size",
                    line: line)
            }
            return size
        }
    }

    /// One line of the file, read in place.
    struct Line {
        let bytes: [UInt8]
        let range: Range<Int>
        let number: Int

        /// Whitespace-separated fields up to a `#` (a TITLE's quoted text is read separately),
        /// in place of what `result` held.
        func tokens(into result: inout [Range<Int>]) {
            result.removeAll(keepingCapacity: true)
            var index = range.lowerBound
            while index < range.upperBound {
                let byte = bytes[index]
                if byte == UInt8(ascii: "#") { break }
                if byte == 0x20 || byte == 0x09 {
                    index += 1
                    continue
                }
                let begin = index
                if byte == UInt8(ascii: "\"") {  // a TITLE's text
                    result.append(begin..<range.upperBound)
                    return
                }
                while index < range.upperBound, bytes[index] != 0x20, bytes[index] != 0x09 { index += 1 }
                result.append(begin..<index)
            }
        }

        /// A word starting with a letter that is not a spelling of NaN or infinity (those are
        /// points with numbers that are not finite).
        func isKeyword(_ token: Range<Int>) -> Bool {
            let first = bytes[token.lowerBound]
            let letter =
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
            return letter && !isNonFiniteWord(token)
        }

        func isNonFiniteWord(_ token: Range<Int>) -> Bool {
            guard token.count <= 9 else { return false }
            var word = text(token).lowercased()
            if word.first == "+" || word.first == "-" { word.removeFirst() }
            return word == "nan" || word == "inf" || word == "infinity"
        }

        func text(_ token: Range<Int>) -> String { String(decoding: bytes[token], as: UTF8.self) }

        /// The quoted text after TITLE.
        func title(after keyword: Range<Int>) throws(CubeError) -> String {
            let rest = bytes[keyword.upperBound..<range.upperBound].drop { $0 == 0x20 || $0 == 0x09 }
            guard rest.first == UInt8(ascii: "\""), let close = rest.dropFirst().firstIndex(of: UInt8(ascii: "\""))
            else {
                throw error(.malformed, "TITLE takes its text in double quotes")
            }
            let inside = rest[(rest.startIndex + 1)..<close]
            guard inside.count <= CubeFile.maxTitleBytes else {
                throw error(.tooLarge, "the TITLE is \(inside.count) bytes; the limit is \(CubeFile.maxTitleBytes)")
            }
            guard let title = String(validating: inside, as: UTF8.self) else {
                throw error(.malformed, "the TITLE is not UTF-8 text")
            }
            return title
        }

        /// A decimal number: `[+-]digits[.digits][e[+-]digits]`, finite as a Float.
        func number(_ token: Range<Int>) throws(CubeError) -> Float {
            // The spellings of NaN and infinity are not decimals: looked for only then, as a
            // 33³ table has a hundred thousand numbers.
            guard Self.isDecimal(bytes[token]) else {
                throw isNonFiniteWord(token)
                    ? error(.notFinite, "\(quoted(token)) is not a finite number; a LUT holds colours")
                    : error(.malformed, "\(quoted(token)) is not a decimal number")
            }
            if let value = Self.shortDecimal(bytes[token]) { return value }
            guard let value = Float(text(token)) else {
                throw error(.malformed, "\(quoted(token)) is not a decimal number")
            }
            guard value.isFinite else {
                throw error(.notFinite, "\(quoted(token)) is not a finite number; a LUT holds colours")
            }
            return value
        }

        /// Powers of ten a Float holds exactly (5¹⁰ < 2²⁴).
        static let exactPowers: [Float] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10]

        /// A checked decimal with no exponent, at most 2²⁴ as a whole number of digits and at
        /// most ten after the point (what `.cube` writers print, `0.123456`): both that number
        /// and the power of ten are exact Floats, so one division rounds it correctly, as
        /// `Float(String)` would (Clinger's fast path). Anything else is nil.
        static func shortDecimal(_ bytes: ArraySlice<UInt8>) -> Float? {
            var digits: Int32 = 0
            var places = 0
            var afterPoint = false
            var negative = false
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    digits = digits * 10 + Int32(byte - UInt8(ascii: "0"))
                    guard digits <= 1 << 24 else { return nil }
                    if afterPoint { places += 1 }
                case UInt8(ascii: "."): afterPoint = true
                case UInt8(ascii: "-"): negative = true
                case UInt8(ascii: "+"): break
                default: return nil  // an exponent
                }
            }
            guard places < exactPowers.count else { return nil }
            let value = Float(digits) / exactPowers[places]
            return negative ? -value : value
        }

        static func isDecimal(_ bytes: ArraySlice<UInt8>) -> Bool {
            var index = bytes.startIndex
            func digits() -> Int {
                let begin = index
                while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                    index += 1
                }
                return index - begin
            }
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            var mantissa = digits()
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: ".") {
                index += 1
                mantissa += digits()
            }
            guard mantissa > 0 else { return false }
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits() > 0 else { return false }
            }
            return index == bytes.endIndex
        }

        /// At most 40 bytes of the token, for a message.
        func quoted(_ token: Range<Int>) -> String {
            let shown = bytes[token].prefix(40)
            let text = String(decoding: shown, as: UTF8.self)
            return "\"\(text)\(shown.count < token.count ? "…" : "")\""
        }

        func error(_ code: CubeError.Code, _ message: String) -> CubeError {
            CubeError(code, message, line: number)
        }
    }
}
