import DarkroomTestSupport
import Foundation
import Testing

/// `darkroom render` decodes and encodes in the decoders' sandbox (`--decoder-sandbox on`, the
/// default), as a worker does: the same bytes in every output as in its own process, for a
/// JPEG with a filter's LUT and renditions, an iPhone HEIC and an Apple Photos edit; the same
/// refusals; and a child that crashes fails the command, not more.
@Suite(.serialized) struct SandboxedRenderCommandTests {
    static func withFolder(_ body: (String) throws -> Void) throws {
        let folder = NSTemporaryDirectory() + "darkroom-render-sandbox-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    /// Runs `darkroom render` with `flags` under each setting; the files each wrote, by name.
    static func outputs(_ input: String, _ flags: [String], in folder: String) throws -> [String: [Data]] {
        let command = DarkroomCommand(databaseURL: "", storage: folder)
        var written: [String: [Data]] = [:]
        for setting in ["off", "on"] {
            let output = folder + "/\(setting).jpg"
            let thumbnail = folder + "/\(setting).webp"
            let result = try command.run(
                ["render", input, "-o", output, "--rendition", "webp:320=\(thumbnail)", "--decoder-sandbox", setting]
                    + flags)
            try #require(result.status == 0, "\(setting): \(result.stderr)")
            for path in [output, thumbnail] {
                written[String(path.dropFirst(folder.count + 1).drop { $0 != "." }), default: []].append(
                    try Data(contentsOf: URL(fileURLWithPath: path)))
            }
        }
        return written
    }

    @Test(arguments: [
        (
            Fixtures.exifSample("canon_hdr_NO.jpg").path,
            [
                "--data",
                #"{"operations":[{"op":"filter","name":"dusk","version":"1.0.0"},{"op":"rotate","degrees":5}]}"#,
                "--filter-file", "dusk@1.0.0=\(FilterJobTests.grayscale)",
            ]
        ),
        (
            Fixtures.root.appendingPathComponent("corpus/osxphotos/IMG_1853.HEIC").path,
            ["--data", #"{"operations":[{"op":"crop","x":100,"y":200,"width":1600,"height":1200}]}"#]
        ),
        (
            Fixtures.root.appendingPathComponent("apple/wedding.jpg").path,
            ["--aae", Fixtures.root.appendingPathComponent("apple/wedding.AAE").path]
        ),
    ])
    func theChildWritesTheBytesThisProcessWrites(input: String, flags: [String]) throws {
        try Self.withFolder { folder in
            let written = try Self.outputs(input, flags, in: folder)
            #expect(written.count == 2)
            for (kind, versions) in written {
                #expect(versions.count == 2 && versions[0] == versions[1] && !versions[0].isEmpty, "\(kind)")
            }
        }
    }

    /// `--explain` reads the header in the child too, and says the same.
    @Test func theExplanationIsTheSame() throws {
        try Self.withFolder { folder in
            let command = DarkroomCommand(databaseURL: "", storage: folder)
            for (input, flags) in [
                (
                    Fixtures.exifSample("canon_hdr_NO.jpg").path,
                    [
                        "--data", #"{"operations":[{"op":"filter","name":"dusk","version":"1.0.0"}]}"#,
                        "--filter-file", "dusk@1.0.0=\(FilterJobTests.grayscale)", "--rendition", "webp:320=x.webp",
                    ]
                ),
                (
                    Fixtures.root.appendingPathComponent("corpus/osxphotos/IMG_3582.HEIC").path,
                    ["--data", #"{"operations":[{"op":"rotate","degrees":3}]}"#]
                ),
                (
                    Fixtures.root.appendingPathComponent("apple/wedding.jpg").path,
                    ["--aae", Fixtures.root.appendingPathComponent("apple/wedding.AAE").path, "--apple-geometry-only"]
                ),
            ] {
                let explained = try ["off", "on"].map { setting in
                    try command.run(["render", input, "--explain", "--decoder-sandbox", setting] + flags)
                }
                #expect(explained.allSatisfy { $0.status == 0 }, "\(explained.map(\.stderr))")
                #expect(explained[0].stdout == explained[1].stdout && !explained[0].stdout.isEmpty, "\(input)")
                #expect(explained[0].stderr == explained[1].stderr, "\(input)")
            }
        }
    }

    @Test func refusalsAreTheSameAndLeaveNoOutput() throws {
        try Self.withFolder { folder in
            let command = DarkroomCommand(databaseURL: "", storage: folder)
            let notes = folder + "/notes.jpg"
            try Data("not a photo at all".utf8).write(to: URL(fileURLWithPath: notes))
            let data = #"{"operations":[{"op":"filter","name":"dusk","version":"1.0.0"}]}"#
            for (input, flags) in [
                (notes, ["--data", #"{"operations":[]}"#]),
                (Fixtures.exifSample("Canon_40D.jpg").path, ["--data", data]),
            ] {
                var messages: [String] = []
                for setting in ["off", "on"] {
                    let output = folder + "/\(setting).jpg"
                    let result = try command.run(
                        ["render", input, "-o", output, "--decoder-sandbox", setting] + flags)
                    #expect(result.status == 1, "\(setting): \(result.stderr)")
                    #expect(!FileManager.default.fileExists(atPath: output))
                    messages.append(result.stderr)
                }
                #expect(messages.allSatisfy { !$0.contains("not a photo at all") }, "\(messages)")
                if input != notes {
                    // The filter is looked up by this process for the child: the same words.
                    #expect(messages[0] == messages[1], "\(messages)")
                }
            }
        }
    }
}
