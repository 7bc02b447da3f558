import Foundation
import Testing

/// docs/architecture.md's table of every module's dependencies says what `Package.swift`
/// declares and what each module's Swift files import, so the map cannot drift from the code.
@Suite("Module graph")
struct ModuleGraphTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The platform's own modules: no manifest declares them.
    static let platform: Set<String> = [
        "Foundation", "FoundationEssentials", "Dispatch", "Synchronization", "Darwin", "Glibc", "Musl",
    ]

    /// The `| module | uses |` table: each row's first backticked name, and the backticked
    /// names of its second cell (other words there are commentary).
    static func documented(_ markdown: String) throws -> [String: Set<String>] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| module | uses |") }) else {
            throw GraphError.problem("docs/architecture.md has no `| module | uses |` table")
        }
        var table: [String: Set<String>] = [:]
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 3, let module = backticked(cells[1]).first else {
                throw GraphError.problem("a row of the module table names no module: \(line)")
            }
            guard table[module] == nil else { throw GraphError.problem("\(module) has two rows in the module table") }
            table[module] = Set(backticked(cells[2]))
        }
        return table
    }

    static func backticked(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }

    /// Every target of the manifest outside Tests/, with the names of its dependencies
    /// (a product by its name: the module it brings). Read from the text: `swift package
    /// dump-package` would wait for the lock of a build in progress.
    static func declared(_ manifest: String) throws -> [String: Set<String>] {
        // Comments out, so a word in one is not read as a name (a URL's "//" follows a colon).
        let code = manifest.split(separator: "\n").map { line -> Substring in
            guard let comment = line.range(of: "//"),
                comment.lowerBound == line.startIndex || line[line.index(before: comment.lowerBound)] != ":"
            else { return line }
            return line[..<comment.lowerBound]
        }.joined(separator: "\n")
        var targets: [String: Set<String>] = [:]
        let kinds = [".target(", ".executableTarget(", ".systemLibrary(", ".testTarget("]
        var rest = code[...]
        while let start = kinds.compactMap({ rest.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            let body = try balanced(rest[start.upperBound...], open: "(", close: ")")
            rest = rest[body.endIndex...]
            guard !code[start].hasPrefix(".testTarget"), !body.contains("path: \"Tests/") else { continue }
            guard let name = firstString(after: "name:", in: body) else {
                throw GraphError.problem("a target of Package.swift without a name: \(body.prefix(80))")
            }
            var uses: Set<String> = []
            if let list = body.range(of: "dependencies:") {
                var dependencies = try balanced(
                    body[list.upperBound...].drop { $0 != "[" }.dropFirst(), open: "[", close: "]")
                // `.product(name: "Logging", package: "swift-log")` is the module Logging.
                while let product = dependencies.range(of: ".product(") {
                    let call = try balanced(dependencies[product.upperBound...], open: "(", close: ")")
                    if let productName = firstString(after: "name:", in: call) { uses.insert(productName) }
                    dependencies = dependencies[..<product.lowerBound] + dependencies[call.endIndex...]
                }
                uses.formUnion(strings(in: dependencies))
            }
            targets[name] = uses
        }
        return targets
    }

    /// The text after an opening bracket up to its matching closing one (excluded).
    static func balanced(_ text: Substring, open: Character, close: Character) throws -> Substring {
        var depth = 1
        var inString = false
        for index in text.indices {
            let character = text[index]
            if character == "\"" { inString.toggle() }
            guard !inString else { continue }
            if character == open { depth += 1 }
            if character == close {
                depth -= 1
                if depth == 0 { return text[..<index] }
            }
        }
        throw GraphError.problem("Package.swift: no '\(close)' closes \(text.prefix(60))")
    }

    static func strings(in text: Substring) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }

    static func firstString(after label: String, in text: Substring) -> String? {
        text.range(of: label).flatMap { strings(in: text[$0.upperBound...]).first }
    }

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
        let sources = root.appendingPathComponent("Sources")
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

    /// Each module of Sources with Swift files: the modules they import, the platform's left out.
    static func imported() throws -> [String: Set<String>] {
        var modules: [String: Set<String>] = [:]
        for (module, _, lines) in try Self.sourceFiles() {
            let names = lines.compactMap { Self.importedModule(String($0)) }
            modules[module, default: []].formUnion(names.filter { !platform.contains($0) })
        }
        return modules
    }

    /// "module: in A, not in B: x, y", one line per module that differs.
    static func differences(
        _ a: [String: Set<String>], _ aName: String, _ b: [String: Set<String>], _ bName: String
    ) -> [String] {
        Set(a.keys).union(b.keys).sorted().compactMap { module in
            guard let left = a[module] else { return "\(module): in \(bName), missing from \(aName)" }
            guard let right = b[module] else { return "\(module): in \(aName), missing from \(bName)" }
            var problems: [String] = []
            let onlyLeft = left.subtracting(right).sorted()
            let onlyRight = right.subtracting(left).sorted()
            if !onlyLeft.isEmpty { problems.append("in \(aName), not \(bName): \(onlyLeft.joined(separator: ", "))") }
            if !onlyRight.isEmpty {
                problems.append("in \(bName), not \(aName): \(onlyRight.joined(separator: ", "))")
            }
            return problems.isEmpty ? nil : "\(module): " + problems.joined(separator: "; ")
        }
    }

    enum GraphError: Error, CustomStringConvertible {
        case problem(String)
        var description: String {
            switch self {
            case .problem(let text): text
            }
        }
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theArchitectureTableIsWhatPackageSwiftDeclares() throws {
        let differences = Self.differences(
            try Self.documented(try Self.read("docs/architecture.md")), "docs/architecture.md",
            try Self.declared(try Self.read("Package.swift")), "Package.swift")
        #expect(differences == [], "\n\(differences.joined(separator: "\n"))")
    }

    /// The drawing's arrows, read as the eye reads them: `A ─▶ B` on a line; `├─▶ B` or `╰─▶ B`
    /// from the module whose `┬` stands in that column above; `A, B ─▶ C` from each of A and B;
    /// `─▶ B, C` to each. A parenthesised summary, `(─▶ …)`, is commentary.
    static func drawn(_ markdown: String) throws -> [(from: String, to: String)] {
        guard let start = markdown.range(of: "## Modules"),
            let open = markdown[start.upperBound...].range(of: "```\n"),
            let close = markdown[open.upperBound...].range(of: "```")
        else { throw GraphError.problem("docs/architecture.md has no drawing under ## Modules") }
        var edges: [(String, String)] = []
        var branchOwner: [Int: String] = [:]
        for line in markdown[open.upperBound..<close.lowerBound].split(separator: "\n") {
            let text = Array(String(line.split(separator: "(─▶").first ?? line))
            var column = 0
            var previous: [String] = []
            while column < text.count {
                let character = text[column]
                if character == "├" || character == "╰" || character == "┬" || character == "─" {
                    // An arrow: find where it points.
                    var end = column
                    while end < text.count, "├╰┬─▶ ".contains(text[end]) { end += 1 }
                    let arrow = String(text[column..<end])
                    guard arrow.contains("▶") else {
                        column = end
                        continue
                    }
                    let sources =
                        (character == "├" || character == "╰") ? branchOwner[column].map { [$0] } ?? [] : previous
                    if let fork = arrow.firstIndex(of: "┬"), let owner = previous.last {
                        branchOwner[column + arrow.distance(from: arrow.startIndex, to: fork)] = owner
                    }
                    let (targets, next) = names(in: text, from: end)
                    for source in sources { for target in targets { edges.append((source, target)) } }
                    previous = targets
                    column = next
                } else if character.isLetter {
                    let (found, next) = names(in: text, from: column)
                    previous = found
                    column = next
                } else {
                    column += 1
                }
            }
        }
        return edges
    }

    /// The module names from `start`: one, or a comma-separated list; each name's parenthesised
    /// note skipped. Returns them and where reading stopped.
    static func names(in text: [Character], from start: Int) -> ([String], Int) {
        var names: [String] = []
        var index = start
        while true {
            while index < text.count, text[index] == " " { index += 1 }
            var name = ""
            while index < text.count, text[index].isLetter || text[index].isNumber {
                name.append(text[index])
                index += 1
            }
            guard !name.isEmpty else { break }
            names.append(name)
            while index < text.count, text[index] == " " { index += 1 }
            if index < text.count, text[index] == "(" {
                while index < text.count, text[index] != ")" { index += 1 }
                index += 1
            }
            guard index < text.count, text[index] == "," else { break }
            index += 1
        }
        return (names, index)
    }

    /// Every arrow of the drawing is a dependency Package.swift declares (a C library's own
    /// name in a note, like `libjpeg-turbo`, is not a module and is not read).
    @Test func theArchitectureDrawingIsWhatPackageSwiftDeclares() throws {
        let declared = try Self.declared(try Self.read("Package.swift"))
        let edges = try Self.drawn(try Self.read("docs/architecture.md"))
        #expect(edges.count > 30, "read only \(edges.count) arrows from the drawing")
        let wrong = edges.filter { declared[$0.from]?.contains($0.to) != true }.map { "\($0.from) ─▶ \($0.to)" }
        #expect(wrong == [], "drawn but not declared:\n\(wrong.joined(separator: "\n"))")
        let drawnModules = Set(edges.flatMap { [$0.from, $0.to] })
        let missing = Set(declared.keys).subtracting(drawnModules).sorted()
        #expect(missing == [], "modules missing from the drawing: \(missing)")
    }

    @Test func eachModuleImportsWhatPackageSwiftDeclares() throws {
        // Only modules with Swift files: a C target's includes are not imports.
        let imported = try Self.imported()
        let declared = try Self.declared(try Self.read("Package.swift")).filter { imported[$0.key] != nil }
        let differences = Self.differences(imported, "the imports", declared, "Package.swift")
        #expect(differences == [], "\n\(differences.joined(separator: "\n"))")
    }

    /// The walls between layers are in the manifest, and the compiler keeps them: a file uses a
    /// module's members only if it imports that module (`MemberImportVisibility`, on for every
    /// target), a module imports only what it declares (`eachModuleImportsWhatPackageSwiftDeclares`),
    /// and the boundary modules import what is behind them internally. So only DarkroomDatabase
    /// reaches libpq (its `DatabaseConnection` sends nothing but its own `SQL/` files), and only
    /// DarkroomImaging reaches the codecs.
    @Test func onlyTheBoundaryModulesDeclareWhatIsBehindThem() throws {
        let declared = try Self.declared(try Self.read("Package.swift"))
        func users(of module: String) -> Set<String> { Set(declared.filter { $0.value.contains(module) }.keys) }
        #expect(users(of: "LibPQ") == ["DarkroomDatabase"])
        #expect(users(of: "CPostgres") == ["LibPQ"])
        for codec in ["JPEGTurbo", "LibHeif", "LibWebP", "LittleCMS"] {
            #expect(users(of: codec) == ["DarkroomImaging"], "\(codec)")
        }
        // The boundary's own imports are internal: no public declaration of it can name libpq.
        let database = try Self.sourceFiles().filter { $0.module == "DarkroomDatabase" }
        let publicLibPQ = database.flatMap { file in
            file.lines.filter { Self.importedModule(String($0)) == "LibPQ" && !$0.hasPrefix("internal import") }
                .map { "\(file.file): \($0)" }
        }
        #expect(!database.isEmpty)
        #expect(publicLibPQ == [])
    }

    @Test func theImportReaderReadsEveryFormOfImport() {
        #expect(Self.importedModule("import LibPQ") == "LibPQ")
        #expect(Self.importedModule("@preconcurrency import LibPQ") == "LibPQ")
        #expect(Self.importedModule("internal import LibPQ") == "LibPQ")
        #expect(Self.importedModule("@_exported import LibPQ") == "LibPQ")
        #expect(Self.importedModule("import struct LibPQ.PostgresBind") == "LibPQ")
        #expect(Self.importedModule("import Foundation") == "Foundation")
        #expect(Self.importedModule("/// an import of nothing") == nil)
        #expect(Self.importedModule("let x = 1") == nil)
    }

    /// The readers themselves: a row, a product and a comment each read as meant.
    @Test func theReadersFindNamesNotWordsAroundThem() throws {
        let table = try Self.documented(
            """
            | module | uses |
            | --- | --- |
            | `A` (C) | `B`, `C` (for headers) |
            | `D` | libd (system library) |
            """)
        #expect(table == ["A": ["B", "C"], "D": []])
        let manifest = try Self.declared(
            """
            .package(url: "https://example.com/x", from: "1.0.0"),
            .target(name: "A", dependencies: [
                "B", // "NotThis"
                .product(name: "P", package: "p-package"),
            ]),
            .systemLibrary(name: "S", pkgConfig: "s"),
            .target(name: "T", dependencies: ["A"], path: "Tests/T"),
            .testTarget(name: "ATests", dependencies: ["A"]),
            """)
        #expect(manifest == ["A": ["B", "P"], "S": []])
        #expect(
            Self.differences(["A": ["B"], "C": []], "one", ["A": ["B", "D"]], "two") == [
                "A: in two, not one: D", "C: in one, missing from two",
            ])
    }
}
