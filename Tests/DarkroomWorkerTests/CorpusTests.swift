import DarkroomDatabase
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import Testing

@testable import DarkroomWorker

/// Every file of `Tests/Fixtures/corpus` (real photos and test files made by others, see its
/// README) rendered at the default budget and at 64 MiB, each outcome checked against
/// `expected.tsv`; where both render, the bytes are the same.
@Suite struct CorpusTests {
    static let folder = Fixtures.root.appendingPathComponent("corpus")

    struct Expectation: Sendable, CustomTestStringConvertible {
        var file: String
        var atDefault: String
        var at64MiB: String
        var testDescription: String { file }
    }

    static let expectations: [Expectation] = {
        let table = (try? String(contentsOf: folder.appendingPathComponent("expected.tsv"), encoding: .utf8)) ?? ""
        return table.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t").map(String.init)
            return fields.count == 3 ? Expectation(file: fields[0], atDefault: fields[1], at64MiB: fields[2]) : nil
        }
    }()

    /// What a render of `file` gives, in the table's words: `rendered`, `rendered with CODE,…`
    /// (its warnings' stable codes) or `refused CODE` (the failure code a job records).
    static func outcome(of file: String, budget: Int, output: String) -> String {
        var settings = RenderSettings()
        settings.memoryBudget = budget
        settings.threads = 1
        let render = FileRender(
            inputPath: folder.appendingPathComponent(file).path, outputPath: output,
            formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0", data: Array(#"{"operations":[]}"#.utf8),
            settings: settings)
        do {
            let result = try render.render().result
            let codes = Set(result.warnings.map(\.code)).sorted()
            return codes.isEmpty ? "rendered" : "rendered with " + codes.joined(separator: ",")
        } catch let error as RenderError {
            return "refused " + FailureCode(error).rawValue
        } catch {
            return "refused \(type(of: error))"
        }
    }

    @Test func everyFileOfTheCorpusIsInTheTable() throws {
        let listed = Set(Self.expectations.map(\.file))
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.folder.path).filter { path in
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(
                atPath: Self.folder.appendingPathComponent(path).path, isDirectory: &isFolder)
            let name = (path as NSString).lastPathComponent
            return !isFolder.boolValue && !name.hasPrefix("LICENSE") && !name.hasSuffix(".md")
                && !name.hasSuffix(".tsv")
        }
        #expect(Set(files) == listed)
        #expect(listed.count >= 20)
    }

    @Test(arguments: expectations)
    func eachFileHasTheOutcomeTheTableGives(_ expectation: Expectation) throws {
        let folder = NSTemporaryDirectory() + "darkroom-corpus-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let atDefault = Self.outcome(
            of: expectation.file, budget: RenderSettings().memoryBudget, output: folder + "/default.jpg")
        let at64 = Self.outcome(of: expectation.file, budget: 64 << 20, output: folder + "/64.jpg")
        #expect(atDefault == expectation.atDefault, "\(expectation.file) at the default budget")
        #expect(at64 == expectation.at64MiB, "\(expectation.file) at 64 MiB")
        if atDefault.hasPrefix("rendered"), at64.hasPrefix("rendered") {
            let a = try Fixtures.bytes(of: URL(fileURLWithPath: folder + "/default.jpg"))
            let b = try Fixtures.bytes(of: URL(fileURLWithPath: folder + "/64.jpg"))
            #expect(a == b, "\(expectation.file): the render depends on the budget")
        }
    }
}
