import Foundation
import Testing

/// Every statement darkroom sends is DarkroomDatabase's (its SQL in `SQL/`): no other module
/// of Sources imports LibPQ (or libpq itself), nor calls the connection's sending methods. The
/// modules above hold a `DatabaseConnection` and call DarkroomDatabase's typed functions.
@Suite("SQL ownership")
struct SQLOwnershipTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// Which modules may import which of the PostgreSQL modules.
    static let allowed: [String: Set<String>] = [
        "CPostgres": ["LibPQ"],
        "LibPQ": ["DarkroomDatabase"],
    ]

    /// `import LibPQ`, `@preconcurrency import LibPQ`, `internal import LibPQ`,
    /// `import struct LibPQ.PostgresBind`: the module a line imports, if any.
    static func importedModule(_ line: String) -> String? {
        let words = line.split(whereSeparator: \.isWhitespace).filter { !$0.hasPrefix("@") }
        let access: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
        guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
            words[..<index].allSatisfy(access.contains)
        else { return nil }
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"]
        let target = kinds.contains(words[index + 1]) && index + 2 < words.count ? words[index + 2] : words[index + 1]
        return target.split(separator: ".").first.map(String.init)
    }

    /// Every Swift file of Sources: its module, its path in the module and its lines.
    static func sourceFiles() throws -> [(module: String, file: String, lines: [Substring])] {
        var found: [(module: String, file: String, lines: [Substring])] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let folder = sources.appendingPathComponent(module)
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                found.append((module, file, text.split(separator: "\n")))
            }
        }
        return found
    }

    @Test func onlyDarkroomDatabaseImportsLibPQ() throws {
        var offenders: [String] = []
        var importers: [String: Set<String>] = [:]
        for (module, file, lines) in try Self.sourceFiles() {
            for line in lines {
                guard let imported = Self.importedModule(String(line)), let allowed = Self.allowed[imported]
                else { continue }
                importers[imported, default: []].insert(module)
                // Re-exported, it would reach every module that imports this one.
                if !allowed.contains(module) || line.contains("@_exported") {
                    offenders.append("\(module)/\(file): \(line)")
                }
            }
        }
        #expect(offenders == [], "only DarkroomDatabase sends SQL; these import PostgreSQL's modules")
        // The scan sees the imports that are meant to be there (a scan that found nothing would pass).
        #expect(importers["LibPQ"] == ["DarkroomDatabase"])
        #expect(importers["CPostgres"] == ["LibPQ"])
    }

    /// The connection's methods that send statements or read what LISTEN brings.
    static let sendingMethods = ["query", "execute", "withTransaction", "listen", "unlisten", "waitForNotification"]

    /// `DatabaseConnection` is LibPQ's connection under another name, and Swift lets a module
    /// call the members of a type it did not import: no module but DarkroomDatabase and LibPQ
    /// calls the ones that send SQL.
    @Test func noOtherModuleCallsTheConnectionsSendingMethods() throws {
        let call = try Regex("\\.(" + Self.sendingMethods.joined(separator: "|") + ")\\s*[({]")
        var offenders: [String] = []
        var seenInDatabase = false
        for (module, file, lines) in try Self.sourceFiles() {
            for line in lines where line.contains(call) {
                if module == "DarkroomDatabase" { seenInDatabase = true }
                if !["DarkroomDatabase", "LibPQ"].contains(module) { offenders.append("\(module)/\(file): \(line)") }
            }
        }
        #expect(offenders == [], "only DarkroomDatabase sends SQL; these call the connection directly")
        #expect(seenInDatabase, "the pattern finds DarkroomDatabase's own calls")
    }

    @Test func theScanReadsEveryFormOfImport() {
        #expect(Self.importedModule("import LibPQ") == "LibPQ")
        #expect(Self.importedModule("@preconcurrency import LibPQ") == "LibPQ")
        #expect(Self.importedModule("internal import LibPQ") == "LibPQ")
        #expect(Self.importedModule("@_exported import LibPQ") == "LibPQ")
        #expect(Self.importedModule("import struct LibPQ.PostgresBind") == "LibPQ")
        #expect(Self.importedModule("import Foundation") == "Foundation")
        #expect(Self.importedModule("/// an import of nothing") == nil)
        #expect(Self.importedModule("let x = 1") == nil)
    }
}
