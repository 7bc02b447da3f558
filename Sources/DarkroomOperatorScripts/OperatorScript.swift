import Foundation

/// An operator batch job: one SQL statement in `Jobs/NAME.sql` with a header of `-- key: value`
/// lines saying what it does, its parameters and its schedule. Parameters appear in the SQL as
/// `:name` and are sent as bound values (`$n::type`), never spliced into the text.
///
///     -- job: prune
///     -- does: Delete finished jobs past their retention, in batches.
///     -- schedule: daily at 03:30
///     -- param: batch_size int = 5000  -- rows per transaction
///     -- repeat: until-zero
///     SELECT darkroom.prune_jobs(batch_size => :batch_size)
public struct OperatorScript: Sendable, Hashable {
    public struct Parameter: Sendable, Hashable {
        public var name: String
        /// An SQL type the value is cast to: text, int, bigint, boolean, interval, timestamptz, text[].
        public var type: String
        /// nil: the parameter is required.
        public var defaultValue: String?
        public var help: String
    }

    /// After running the statement once, what the runner does.
    public enum Repeat: String, Sendable, Hashable {
        /// Once.
        case once
        /// Again while the first column of the first row is a positive number (batched deletes).
        case untilZero = "until-zero"
    }

    /// What `-- files:` names.
    public enum Files: String, Sendable, Hashable {
        /// The runner lists render files and binds them to `:paths`, with the job that wrote
        /// each (`:job_ids`, from the storage layout) and whether it is an unfinished upload
        /// (`:temporary`); each returned `path` is deleted (see `Jobs/clean-orphaned-renders.sql`).
        case renders
    }

    public var name: String
    public var summary: String
    public var schedule: String
    public var parameters: [Parameter]
    public var repeats: Repeat
    /// The files the runner hands the statement (`-- files:`), nil for none.
    public var files: Files?
    /// The statement with `:name` placeholders.
    public var sql: String

    /// A job file is one statement and its header: the bundled ones are 1–3 KiB.
    public static let maxBytes = 64 << 10
    public static let maxParameters = 32

    static let types: Set<String> = [
        "text", "int", "bigint", "boolean", "interval", "timestamptz", "text[]", "bigint[]",
        "boolean[]", "double precision",
    ]

    /// Parses a job file; `expectedName` is its file name without `.sql`, which must match.
    public init(parsing text: String, expectedName: String) throws(OperatorScriptError) {
        guard text.utf8.count <= Self.maxBytes else {
            throw OperatorScriptError(
                object: expectedName,
                message: "the file is \(text.utf8.count) bytes; a job file holds at most \(Self.maxBytes)")
        }
        var fields: [String: String] = [:]
        var parameters: [Parameter] = []
        var body: [Substring] = []
        var inHeader = true
        // Any line ending (a file saved on Windows ends lines in CR LF, one Character in Swift),
        // and the same trimming as the SQL gets below, so a line is header or SQL, never both.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        for (number, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard inHeader, trimmed.hasPrefix("--") else {
                if !trimmed.isEmpty || !body.isEmpty {
                    inHeader = false
                    body.append(line)
                }
                continue
            }
            let content = trimmed.dropFirst(2).trimmingCharacters(in: .whitespaces)
            guard let colon = content.firstIndex(of: ":") else { continue }  // prose in the header
            let key = content[..<colon].trimmingCharacters(in: .whitespaces)
            let value = content[content.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard key.allSatisfy({ $0.isLetter || $0 == "-" }) else { continue }
            if key == "param" {
                let parameter = try Self.parameter(value, line: number + 1, script: expectedName)
                guard !parameters.contains(where: { $0.name == parameter.name }) else {
                    throw OperatorScriptError(
                        object: expectedName,
                        message: "line \(number + 1): parameter \(parameter.name) is declared twice")
                }
                guard parameters.count < Self.maxParameters else {
                    throw OperatorScriptError(
                        object: expectedName,
                        message: "line \(number + 1): a job takes at most \(Self.maxParameters) parameters")
                }
                parameters.append(parameter)
            } else if fields[key] == nil {
                fields[key] = value
            } else {
                throw OperatorScriptError(object: expectedName, message: "line \(number + 1): `\(key):` appears twice")
            }
        }
        guard let name = fields["job"] else {
            throw OperatorScriptError(object: expectedName, message: "the header has no `-- job: NAME` line")
        }
        guard name == expectedName else {
            throw OperatorScriptError(
                object: expectedName, message: "the header says `job: \(name)` but the file is \(expectedName).sql")
        }
        guard let summary = fields["does"], !summary.isEmpty else {
            throw OperatorScriptError(
                object: name, message: "the header has no `-- does:` line saying what the job does")
        }
        guard let schedule = fields["schedule"], !schedule.isEmpty else {
            throw OperatorScriptError(
                object: name, message: "the header has no `-- schedule:` line (write `on demand` if it has none)")
        }
        guard let repeats = Repeat(rawValue: fields["repeat"] ?? "once") else {
            throw OperatorScriptError(
                object: name, message: "`repeat:` must be `once` or `until-zero`, not `\(fields["repeat"]!)`")
        }
        var files: Files?
        if let written = fields["files"] {
            guard let known = Files(rawValue: written) else {
                throw OperatorScriptError(object: name, message: "`files:` must be `renders`, not `\(written)`")
            }
            files = known
        }
        let sql = body.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !sql.isEmpty else {
            throw OperatorScriptError(object: name, message: "the file has no SQL after its header")
        }
        let used = try SQLPlaceholders.names(in: sql, script: name)
        let declared = Set(parameters.map(\.name))
        if let undeclared = used.first(where: { !declared.contains($0) }) {
            throw OperatorScriptError(
                object: name,
                message: "the SQL uses :\(undeclared) but the header declares no `-- param: \(undeclared) TYPE`")
        }
        if files == .renders,
            !["paths", "job_ids", "temporary", "min_age_minutes"].allSatisfy(declared.contains)
        {
            throw OperatorScriptError(
                object: name,
                message: "`files: renders` needs `-- param: paths text[]`, `-- param: job_ids bigint[]` and "
                    + "`-- param: temporary boolean[]` (the runner fills them) and `-- param: min_age_minutes int = N`")
        }
        self.name = name
        self.summary = summary
        self.schedule = schedule
        self.parameters = parameters
        self.repeats = repeats
        self.files = files
        self.sql = sql
    }

    /// `name type [= default] [-- help]`
    static func parameter(_ text: String, line: Int, script: String) throws(OperatorScriptError) -> Parameter {
        var declaration = Substring(text)
        var help = ""
        if let dashes = text.range(of: "--") {
            help = text[dashes.upperBound...].trimmingCharacters(in: .whitespaces)
            declaration = text[..<dashes.lowerBound]
        }
        var defaultValue: String?
        if let equals = declaration.firstIndex(of: "=") {
            defaultValue = declaration[declaration.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            declaration = declaration[..<equals]
        }
        let words = declaration.split(separator: " ", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard words.count == 2, let first = words[0].first, first.isLetter || first == "_",
            words[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
        else {
            throw OperatorScriptError(
                object: script, message: "line \(line): write parameters as `-- param: name type [= default] [-- help]`"
            )
        }
        guard types.contains(words[1]) else {
            throw OperatorScriptError(
                object: script,
                message:
                    "line \(line): parameter \(words[0]) has type `\(words[1])`; use one of \(types.sorted().joined(separator: ", "))"
            )
        }
        return Parameter(name: words[0], type: words[1], defaultValue: defaultValue, help: help)
    }

    /// The statement with `$n::type` placeholders and the values to bind, in order. `given`
    /// are `--param k=v` values; missing ones take their defaults; unknown ones are refused.
    public func bound(_ given: [String: String]) throws(OperatorScriptError) -> (sql: String, values: [String]) {
        let known = Set(parameters.map(\.name))
        if let unknown = given.keys.sorted().first(where: { !known.contains($0) }) {
            let names = parameters.map(\.name).joined(separator: ", ")
            throw OperatorScriptError(
                object: name,
                message: "it has no parameter \(unknown); its parameters are \(names.isEmpty ? "none" : names)")
        }
        var resolved: [String: String] = [:]
        for parameter in parameters {
            guard let value = given[parameter.name] ?? parameter.defaultValue else {
                throw OperatorScriptError(
                    object: name,
                    message: "parameter \(parameter.name) is required: pass --param \(parameter.name)=VALUE")
            }
            resolved[parameter.name] = value
        }
        // Numbered in order of first use: a parameter only the runner reads is not sent.
        let types = Dictionary(uniqueKeysWithValues: parameters.map { ($0.name, $0.type) })
        var values: [String] = []
        var index: [String: Int] = [:]
        let sql = try SQLPlaceholders.replace(in: sql, script: name) { name in
            if index[name] == nil {
                values.append(resolved[name]!)
                index[name] = values.count
            }
            return "($\(index[name]!)::\(types[name]!))"
        }
        return (sql, values)
    }
}

public struct OperatorScriptError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable, for programs and logs.
    public enum Code: String, Sendable {
        /// A job file (or the arguments given to it) darkroom refuses to run: the message says why.
        case invalid = "job_file_invalid"
    }

    public var code: Code { .invalid }
    /// The script concerned, by name.
    public var object: String
    public var message: String
    public var description: String { "job \(object): \(message)" }
}

/// Finds `:name` placeholders outside string literals, quoted identifiers and comments;
/// `::type` casts are left alone.
enum SQLPlaceholders {
    static func names(in sql: String, script: String) throws(OperatorScriptError) -> [String] {
        var found: [String] = []
        _ = try replace(in: sql, script: script) { name in
            found.append(name)
            return ""
        }
        return found
    }

    static func replace(in sql: String, script: String, _ substitute: (String) -> String) throws(OperatorScriptError)
        -> String
    {
        let characters = Array(sql)
        var output = ""
        var index = 0
        func isNameCharacter(_ character: Character) -> Bool {
            character.isLetter || character.isNumber || character == "_"
        }
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "'", "\"":
                // Copy the literal or quoted identifier whole; doubled quotes stay inside it.
                var end = index + 1
                while end < characters.count {
                    if characters[end] == character {
                        if end + 1 < characters.count, characters[end + 1] == character {
                            end += 2
                            continue
                        }
                        break
                    }
                    end += 1
                }
                guard end < characters.count else {
                    throw OperatorScriptError(
                        object: script,
                        message:
                            "the SQL has an unterminated \(character == "'" ? "string literal" : "quoted identifier")")
                }
                output += String(characters[index...end])
                index = end + 1
            case "-" where index + 1 < characters.count && characters[index + 1] == "-":
                var end = index
                while end < characters.count, characters[end] != "\n" { end += 1 }
                output += String(characters[index..<end])
                index = end
            case "$":
                // Dollar-quoted bodies ($$ ... $$) are copied whole.
                var tagEnd = index + 1
                while tagEnd < characters.count, isNameCharacter(characters[tagEnd]) { tagEnd += 1 }
                if tagEnd < characters.count, characters[tagEnd] == "$" {
                    let tag = String(characters[index...tagEnd])
                    let rest = String(characters[(tagEnd + 1)...])
                    guard let close = rest.range(of: tag) else {
                        throw OperatorScriptError(object: script, message: "the SQL has an unterminated \(tag) quote")
                    }
                    let body = rest[..<close.upperBound]
                    output += tag + body
                    index = tagEnd + 1 + body.count
                } else {
                    output.append(character)
                    index += 1
                }
            case ":" where index + 1 < characters.count && characters[index + 1] == ":":
                output += "::"
                index += 2
            case ":"
            where index + 1 < characters.count && (characters[index + 1].isLetter || characters[index + 1] == "_"):
                var end = index + 1
                while end < characters.count, isNameCharacter(characters[end]) { end += 1 }
                output += substitute(String(characters[(index + 1)..<end]))
                index = end
            default:
                output.append(character)
                index += 1
            }
        }
        return output
    }
}
