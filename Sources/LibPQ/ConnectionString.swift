internal import CPostgres
import Foundation

/// The one secret a connection string (a URI or `key=value` words) may hold: its password. Kept
/// out of command lines, which every local user reads in `ps`, and out of messages, where libpq
/// would quote a part of the string it could not read.
public enum ConnectionString {
    /// Whether `conninfo` carries a password, as libpq reads it or, for a string it cannot read,
    /// as the text looks (a URI's `user:password@`, a `password=` word or query parameter).
    public static func carriesPassword(_ conninfo: String) -> Bool {
        !secrets(in: conninfo).isEmpty
    }

    /// `message` with each of `conninfo`'s secrets, as written and percent-decoded, shown as `***`.
    public static func redacting(_ message: String, secretsOf conninfo: String) -> String {
        secrets(in: conninfo).sorted { $0.count > $1.count }.reduce(message) {
            $0.replacingOccurrences(of: $1, with: "***")
        }
    }

    static func secrets(in conninfo: String) -> Set<String> {
        var found: Set<String> = []
        if let parsed = parsedPassword(conninfo), !parsed.isEmpty { found.insert(parsed) }
        for written in writtenPasswords(conninfo) where !written.isEmpty {
            found.insert(written)
            if let decoded = written.removingPercentEncoding, !decoded.isEmpty { found.insert(decoded) }
        }
        return found
    }

    /// The password libpq reads from `conninfo`; nil when there is none or it cannot read it.
    private static func parsedPassword(_ conninfo: String) -> String? {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &error) else {
            if let error { PQfreemem(error) }
            return nil
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password", let value = option.pointee.val { return String(cString: value) }
            option += 1
        }
        return nil
    }

    /// Passwords as the text writes them, whether or not libpq can read it.
    private static func writtenPasswords(_ conninfo: String) -> [String] {
        var passwords: [String] = []
        if let scheme = conninfo.range(of: "://"),
            conninfo.lowercased().hasPrefix("postgres://") || conninfo.lowercased().hasPrefix("postgresql://")
        {
            let rest = conninfo[scheme.upperBound...]
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                passwords.append(String(authority[authority.index(after: colon)..<at]))
            }
        }
        var remaining = Substring(conninfo)
        while let word = remaining.range(of: "password", options: .caseInsensitive) {
            remaining = remaining[word.upperBound...]
            let afterSpaces = remaining.drop { $0 == " " }
            guard afterSpaces.first == "=" else { continue }
            var value = afterSpaces.dropFirst().drop { $0 == " " }
            let quoted = value.first == "'"
            if quoted { value = value.dropFirst() }
            let end = value.firstIndex { quoted ? $0 == "'" : ($0 == "&" || $0 == " " || $0 == "#") } ?? value.endIndex
            passwords.append(String(value[..<end]))
            remaining = value[end...]
        }
        return passwords
    }
}
