import Foundation

/// A strict reader of the Prometheus text exposition format (0.0.4), for tests that scrape
/// `/metrics`: it refuses what Prometheus would refuse (bad names, bad escapes, samples of an
/// undeclared family, a series twice, a TYPE after its samples) and what would make a
/// histogram meaningless (buckets out of order or not cumulative, `+Inf` not equal to `_count`).
public struct PrometheusScrape: Sendable {
    public struct Sample: Sendable, Hashable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public struct FormatError: Error, CustomStringConvertible {
        public var line: Int
        public var text: String
        public var reason: String
        public var description: String { "line \(line) \(text.debugDescription): \(reason)" }
    }

    public private(set) var types: [String: String] = [:]
    public private(set) var helps: [String: String] = [:]
    public private(set) var samples: [Sample] = []

    public init(parsing text: String) throws {
        guard text.isEmpty || text.hasSuffix("\n") else {
            throw FormatError(line: 0, text: String(text.suffix(40)), reason: "the exposition must end with a newline")
        }
        var seen = Set<Sample.Series>()
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            if let reason = read(line, seen: &seen) {
                throw FormatError(line: index + 1, text: String(line), reason: reason)
            }
        }
        try checkHistograms()
    }

    /// Takes one line; says what is wrong with it, if anything.
    private mutating func read(_ line: Substring, seen: inout Set<Sample.Series>) -> String? {
        if line.hasPrefix("#") {
            let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            // Anything else after a # is a comment.
            guard words.count >= 3, words[0] == "#", words[1] == "HELP" || words[1] == "TYPE" else { return nil }
            let name = String(words[2])
            guard Self.isMetricName(name) else { return "bad metric name" }
            let rest = words.count == 4 ? String(words[3]) : ""
            if words[1] == "HELP" {
                guard helps[name] == nil else { return "a second HELP line for \(name)" }
                helps[name] = rest
                return nil
            }
            guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(rest) else { return "unknown type" }
            guard types[name] == nil else { return "a second TYPE line for \(name)" }
            guard !samples.contains(where: { Self.family(of: $0.name, types: [name: rest]) == name }) else {
                return "TYPE after samples of \(name)"
            }
            types[name] = rest
            return nil
        }
        var reader = Reader(line: line)
        let sample: Sample
        do { sample = try reader.sample() } catch { return error.reason }
        guard Self.family(of: sample.name, types: types) != nil else { return "sample of a family with no TYPE line" }
        guard seen.insert(sample.series).inserted else { return "the same series twice" }
        if types[sample.name] == "counter", !(sample.value >= 0) { return "a counter below zero" }
        samples.append(sample)
        return nil
    }

    /// The value of the series `name` with exactly `labels`.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// Every sample named `name`.
    public func samples(named name: String) -> [Sample] {
        samples.filter { $0.name == name }
    }

    static func isMetricName(_ name: String) -> Bool {
        name.wholeMatch(of: /[a-zA-Z_:][a-zA-Z0-9_:]*/) != nil
    }

    /// The declared family a sample belongs to: its own name, or a histogram's or summary's.
    static func family(of name: String, types: [String: String]) -> String? {
        if types[name] != nil { return name }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] == "histogram" || (types[base] == "summary" && suffix != "_bucket") { return base }
        }
        return nil
    }

    private func checkHistograms() throws {
        for (name, type) in types where type == "histogram" {
            let buckets = Dictionary(grouping: samples(named: name + "_bucket")) { $0.labels.filter { $0.key != "le" } }
            for (labels, series) in buckets {
                let bounds = try series.map { sample -> (Double, Double) in
                    guard let le = sample.labels["le"], let bound = le == "+Inf" ? Double.infinity : Double(le) else {
                        throw FormatError(line: 0, text: name, reason: "a bucket without a numeric le label")
                    }
                    return (bound, sample.value)
                }
                let ordered = bounds.sorted { $0.0 < $1.0 }
                guard zip(ordered, ordered.dropFirst()).allSatisfy({ $0.1 <= $1.1 }) else {
                    throw FormatError(line: 0, text: name, reason: "buckets \(labels) are not cumulative")
                }
                guard ordered.last?.0 == .infinity, let count = value(name + "_count", labels),
                    ordered.last?.1 == count,
                    value(name + "_sum", labels) != nil
                else {
                    throw FormatError(
                        line: 0, text: name,
                        reason: "\(labels): the +Inf bucket, _count and _sum must all be there and agree")
                }
            }
        }
    }
}

extension PrometheusScrape.Sample {
    struct Series: Hashable {
        var name: String
        var labels: [String: String]
    }

    var series: Series { Series(name: name, labels: labels) }
}

/// Reads one sample line: `name{label="value",...} value [timestamp]`.
private struct Reader {
    struct Failure: Error {
        var reason: String
    }

    var line: Substring

    mutating func sample() throws(Failure) -> PrometheusScrape.Sample {
        let name = take { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard PrometheusScrape.isMetricName(name) else { throw Failure(reason: "bad metric name") }
        var labels: [String: String] = [:]
        if line.first == "{" {
            line.removeFirst()
            while line.first != "}" {
                let label = take { $0.isLetter || $0.isNumber || $0 == "_" }
                guard label.wholeMatch(of: /[a-zA-Z_][a-zA-Z0-9_]*/) != nil else {
                    throw Failure(reason: "bad label name")
                }
                guard line.hasPrefix("=\"") else { throw Failure(reason: "label \(label) without =\"") }
                line.removeFirst(2)
                guard labels.updateValue(try quoted(), forKey: label) == nil else {
                    throw Failure(reason: "label \(label) twice")
                }
                if line.first == "," {
                    line.removeFirst()
                } else if line.first != "}" {
                    throw Failure(reason: "expected , or }")
                }
            }
            line.removeFirst()
        }
        guard line.first == " " else { throw Failure(reason: "expected a space before the value") }
        let fields = line.split(separator: " ")
        guard (1...2).contains(fields.count), let value = Self.number(fields[0]) else {
            throw Failure(reason: "bad value")
        }
        if fields.count == 2, Int64(fields[1]) == nil { throw Failure(reason: "bad timestamp") }
        return PrometheusScrape.Sample(name: name, labels: labels, value: value)
    }

    private mutating func take(while accepted: (Character) -> Bool) -> String {
        let taken = line.prefix(while: accepted)
        line.removeFirst(taken.count)
        return String(taken)
    }

    /// A label value up to its closing quote; only \\, \" and \n may be escaped.
    private mutating func quoted() throws(Failure) -> String {
        var value = ""
        while let character = line.first {
            line.removeFirst()
            switch character {
            case "\"": return value
            case "\\":
                guard let escaped = line.first else { throw Failure(reason: "a label value ends in a backslash") }
                line.removeFirst()
                switch escaped {
                case "\\": value.append("\\")
                case "\"": value.append("\"")
                case "n": value.append("\n")
                default: throw Failure(reason: "bad escape \\\(escaped) in a label value")
                }
            default: value.append(character)
            }
        }
        throw Failure(reason: "an unterminated label value")
    }

    static func number(_ text: Substring) -> Double? {
        switch text {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: Double(text)
        }
    }
}
