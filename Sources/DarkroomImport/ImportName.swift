import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file's name as its folder holds it: bytes, which need not be UTF-8 (a card written by
/// another system, or a name made to break tools). Such a file is imported all the same, and its
/// name is shown with each byte that is not UTF-8 as `\xHH`.
public struct ImportName: Sendable, Hashable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The name as text, when it is UTF-8.
    public var text: String? { String(validating: bytes, as: UTF8.self) }

    /// The name for messages: its UTF-8 as it is, every other byte as `\xHH`. (Control
    /// characters are escaped where it is printed, `Printable`.)
    public var display: String {
        var shown = ""
        var index = 0
        while index < bytes.count {
            let length = Self.sequenceLength(bytes[index])
            if index + length <= bytes.count,
                let scalar = String(validating: bytes[index..<index + length], as: UTF8.self)
            {
                shown += scalar
                index += length
            } else {
                shown += "\\x" + String(bytes[index], radix: 16, uppercase: true).leftPadded(to: 2)
                index += 1
            }
        }
        return shown
    }

    /// How many bytes a UTF-8 sequence starting with `lead` claims (1 for a byte that starts none).
    private static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 1
        }
    }

    /// The names in `folder` as its directory holds them, `.` and `..` left out.
    public static func entries(of folder: String) throws -> [ImportName] {
        guard let directory = opendir(folder) else {
            let code = errno
            throw ImportError(
                code == ENOENT ? .fileNotFound : .unreadable, object: folder,
                message: "cannot list this folder: \(String(cString: strerror(code)))")
        }
        defer { closedir(directory) }
        var names: [ImportName] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            names.append(ImportName(name))
        }
        return names.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
