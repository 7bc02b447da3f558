import DarkroomImaging
import DarkroomTestSupport
import Foundation
import Testing

@testable import DarkroomAdjustments

/// darkroom's archive codec against another implementation: fixtures written by Python's
/// plistlib (Tests/Fixtures/archives, see its README), and — when python3 is installed —
/// plistlib parsing what darkroom writes.
@Suite struct ArchiveInteropTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/archives")

    func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent(name)))
    }

    // MARK: Files plistlib wrote

    @Test func filtsterFixtures() throws {
        let editor = FiltsterEditor()
        let version = SemanticVersion("1.0")!
        #expect(
            try editor.operations(from: fixture("filtster-all-keys.bplist"), version: version)
                == [.vignette(intensity: 2.5, radius: 0.8), .sepia(intensity: 0.6)])
        #expect(
            try FiltsterSettings(archive: fixture("filtster-radius-only.bplist"))
                == FiltsterSettings(vignetteRadius: 1.25))
        #expect(
            try FiltsterSettings(archive: fixture("filtster-integers.bplist"))
                == FiltsterSettings(vignetteIntensity: 3, vignetteRadius: 0.5, sepiaIntensity: 0))
    }

    @Test func chromaKeyFixtures() throws {
        #expect(try ChromaKeySettings(archive: fixture("chromakey-sample.bplist")) == ChromaKeySettings(threshold: 0.5))
        #expect(
            try ChromaKeySettings(archive: fixture("chromakey-darkroom.bplist")).operations == [
                .chromaKey(
                    ChromaKey(
                        key: RGBColor(red: 0, green: 0, blue: 1), threshold: 0.4, background: .grey(1)))
            ])
        // The sample's CIColor is kept as data, by class name, never created.
        guard case .dictionary(let root) = try KeyedArchive.decode(fixture("chromakey-sample.bplist")),
            case .object(let className, let classes, let fields)? = root["activeColor"]
        else {
            Issue.record()
            return
        }
        #expect(
            className == "CIColor" && classes == ["CIColor", "NSObject"]
                && fields == ["CIColorComponents": .string("0 1 0 1")])
    }

    @Test func fixturesSurviveReencoding() throws {
        for name in [
            "filtster-all-keys.bplist", "filtster-radius-only.bplist", "filtster-integers.bplist",
            "chromakey-sample.bplist", "chromakey-darkroom.bplist",
        ] {
            let value = try KeyedArchive.decode(fixture(name))
            #expect(try KeyedArchive.decode(KeyedArchive.encode(value)) == value, "\(name)")
        }
    }

    // MARK: Files darkroom wrote, read by plistlib

    /// python3 as an absolute path or, if only the PATH knows it, a name for /usr/bin/env.
    static let python: String? = {
        for path in ["/usr/bin/python3", "/usr/local/bin/python3"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        let answer = try? run(["/usr/bin/env", "python3", "-c", "import plistlib; print('ok')"], input: [])
        return answer == "ok" ? "python3" : nil
    }()

    static func run(_ arguments: [String], input: [UInt8]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        let errorReader = PipeReader(stderr.fileHandleForReading.fileDescriptor)
        let output = PipeReader.readAll(stdout.fileHandleForReading.fileDescriptor)
        let errors = errorReader.result()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw AdjustmentError(.malformedData, "python3 failed: \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// plistlib's view of `bytes`, in describe-plist.py's canonical form.
    func plistlib(_ bytes: [UInt8]) throws -> String {
        let script = Self.folder.appendingPathComponent("describe-plist.py").path
        let python = try #require(Self.python)
        return try Self.run(python.hasPrefix("/") ? [python, script] : ["/usr/bin/env", python, script], input: bytes)
    }

    /// The same canonical form, from darkroom's reader.
    func canonical(_ value: PropertyListValue) -> String {
        func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        switch value {
        case .bool(let flag): return "b:" + (flag ? "1" : "0")
        case .integer(let number): return "i:\(number)"
        case .real(let number): return "r:" + String(format: "%016llx", number.bitPattern)
        case .date(let seconds): return "date:\(seconds)"
        case .data(let bytes): return "d:" + hex(bytes)
        case .string(let text): return "s:" + hex(text.utf8)
        case .uid(let reference): return "u:\(reference)"
        case .array(let elements): return "[" + elements.map(canonical).joined(separator: ",") + "]"
        case .dictionary(let dictionary):
            let keys = dictionary.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            return "{" + keys.map { canonical(.string($0)) + "=" + canonical(dictionary[$0]!) }.joined(separator: ",")
                + "}"
        }
    }

    @Test(.enabled(if: python != nil, "python3 is not installed"))
    func plistlibReadsDarkroomsArchives() throws {
        let archives: [[UInt8]] = [
            FiltsterSettings(vignetteIntensity: 2.5, vignetteRadius: 0.1, sepiaIntensity: 0.3).archive(),
            ChromaKeySettings(threshold: Double(Float(0.7)), keyColorBlue: 0.5).archive(),
            try PipelineEditor().encode([]),  // not a plist: plistlib must refuse it, proving the check can fail
        ]
        for bytes in archives.dropLast() {
            let expected = canonical(try BinaryPropertyList.decode(bytes))
            #expect(try plistlib(bytes) == expected)
        }
        #expect(throws: AdjustmentError.self) { try plistlib(archives.last!) }
    }

    @Test(.enabled(if: python != nil, "python3 is not installed"))
    func plistlibReadsEveryKindOfObject() throws {
        // Two-byte references and offsets, long counts, UTF-16 strings, negative and large
        // integers, 4- and 8-byte reals, UIDs of several sizes.
        let value: PropertyListValue = .dictionary([
            "many": .array((0..<300).map { .integer(Int64($0) * 1_000_003) }),
            "integers": .array([.integer(-1), .integer(.min), .integer(.max), .integer(65_536)]),
            "reals": .array([.real(0.5), .real(0.1), .real(-0.0), .real(1e300)]),
            "text": .array([.string("Grüße, 世界 😀"), .string(String(repeating: "long ", count: 40))]),
            "data": .data(Array(0..<200)),
            "uids": .array([.uid(0), .uid(255), .uid(256), .uid(100_000)]),
            "flags": .array([.bool(true), .bool(false)]),
        ])
        let bytes = BinaryPropertyList.encode(value)
        #expect(try plistlib(bytes) == canonical(value))
    }
}
