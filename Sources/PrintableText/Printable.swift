/// Text from outside (a job's error, a worker's name or host, a file name, a log's metadata) as
/// a terminal should show it: as written, unable to start a line, move the cursor, retitle the
/// window or reorder what is shown. Control characters (C0, DEL, C1) and Unicode's bidirectional
/// overrides become visible escapes (`\n`, `\u{1B}`).
public enum Printable {
    /// `text` with every control character escaped: one field of one line.
    public static func field(_ text: String) -> String { escaped(text, keeping: []) }

    /// `text` with every control character escaped but the line breaks and tabs this program
    /// writes itself: whole output, whose fields were escaped with `field` where they came from.
    public static func lines(_ text: String) -> String { escaped(text, keeping: ["\n", "\t"]) }

    private static func escaped(_ text: String, keeping kept: Set<Unicode.Scalar>) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && !kept.contains($0) }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard isControl(scalar), !kept.contains(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // Bidirectional embeddings, overrides and isolates: they reorder the rest of a line.
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
