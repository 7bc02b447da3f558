import DarkroomTestSupport
import Foundation
import Testing

/// `darkroom render --filter-file NAME@VERSION=PATH`: a pipeline with a filter renders from a
/// local `.cube`, under a worker's rules: a named version or the newest given, a
/// recorded LUT hash that must be the file's, and the worker's failure codes.
@Suite struct RenderFilterFileTests {
    static let grayscale = Fixtures.lut("obs-grayscale.cube")
    static let identity = Fixtures.lut("obs-original.cube")
    static let input = Fixtures.exifSample("canon_hdr_NO.jpg").path

    /// Runs `render` into a fresh folder; the output's bytes, or nil with the command's stderr.
    static func render(_ data: String, _ files: [String], in folder: String, name: String) throws -> (
        bytes: Data?, stderr: String
    ) {
        let command = DarkroomCommand(databaseURL: "", storage: folder)
        let output = folder + "/" + name
        let result = try command.run(
            ["render", input, "-o", output, "--data", data] + files.flatMap { ["--filter-file", $0] })
        guard result.status == 0 else { return (nil, result.stderr) }
        return (try Data(contentsOf: URL(fileURLWithPath: output)), result.stderr)
    }

    static func withFolder(_ body: (String) throws -> Void) throws {
        let folder = NSTemporaryDirectory() + "darkroom-filter-file-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    @Test func aFilterRendersFromItsFileUnderTheWorkersRules() throws {
        try Self.withFolder { folder in
            let files = [
                "dusk@1.0.0=\(Self.grayscale)", "dusk@1.1=\(Self.identity)", "dusk@2.0.0-beta.1=\(Self.grayscale)",
            ]
            let grey = try Self.render(
                #"{"operations":[{"op":"filter","name":"dusk","version":"1.0.0"}]}"#, files, in: folder, name: "g.jpg")
            let greyBytes = try #require(grey.bytes, "\(grey.stderr)")
            // The grayscale LUT makes every pixel grey.
            let decoded = try DecodedImage(jpeg: [UInt8](greyBytes))
            var spread = 0
            for pixel in stride(from: 0, to: decoded.pixels.count, by: 3) {
                let channels = decoded.pixels[pixel..<pixel + 3]
                spread = max(spread, Int(channels.max()!) - Int(channels.min()!))
            }
            #expect(spread <= 2, "a grey render has channels \(spread) codes apart")

            // No version: the newest release given (1.1.0, the identity), not the beta.
            let newest = try Self.render(
                #"{"operations":[{"op":"filter","name":"dusk"}]}"#, files, in: folder, name: "n.jpg")
            let named = try Self.render(
                #"{"operations":[{"op":"filter","name":"dusk","version":"1.1.0"}]}"#, files, in: folder, name: "i.jpg")
            #expect(newest.bytes != nil && newest.bytes == named.bytes && newest.bytes != grey.bytes)
            // Only pre-releases given: the newest of them, as enqueue_edit chooses.
            let beta = try Self.render(
                #"{"operations":[{"op":"filter","name":"dusk"}]}"#,
                ["dusk@2.0.0-beta.1=\(Self.grayscale)", "dusk@2.0.0-alpha=\(Self.identity)"], in: folder, name: "b.jpg")
            #expect(beta.bytes != nil && beta.bytes == grey.bytes, "\(beta.stderr)")

            // A recorded hash must be the file's.
            let digest = try FilterDigest.of(Self.grayscale)
            let hashed = try Self.render(
                #"{"operations":[{"op":"filter","name":"dusk","version":"1.0.0","sha256":"\#(digest)"}]}"#, files,
                in: folder, name: "h.jpg")
            #expect(hashed.bytes == grey.bytes, "\(hashed.stderr)")
            let wrong = try Self.render(
                #"{"operations":[{"op":"filter","name":"dusk","version":"1.1.0","sha256":"\#(digest)"}]}"#, files,
                in: folder, name: "w.jpg")
            #expect(wrong.bytes == nil && wrong.stderr.contains("filter_hash_mismatch"), "\(wrong.stderr)")
        }
    }

    @Test func whatCannotBeUsedIsRefusedWithTheWorkersCodes() throws {
        try Self.withFolder { folder in
            let data = #"{"operations":[{"op":"filter","name":"dusk","version":"1.0.0"}]}"#
            let none = try Self.render(data, [], in: folder, name: "a.jpg")
            #expect(none.bytes == nil && none.stderr.contains("--filter-file dusk@1.0.0="), "\(none.stderr)")
            #expect(none.stderr.contains("filter_missing"))
            let otherVersion = try Self.render(data, ["dusk@1.0.1=\(Self.grayscale)"], in: folder, name: "b.jpg")
            #expect(otherVersion.bytes == nil && otherVersion.stderr.contains("filter_missing"))
            let otherName = try Self.render(data, ["dawn@1.0.0=\(Self.grayscale)"], in: folder, name: "c.jpg")
            #expect(otherName.bytes == nil && otherName.stderr.contains("filter_missing"))
            let missingFile = try Self.render(data, ["dusk@1.0.0=\(folder)/absent.cube"], in: folder, name: "d.jpg")
            #expect(missingFile.bytes == nil && missingFile.stderr.contains("absent.cube"), "\(missingFile.stderr)")
            let hostile = folder + "/short.cube"
            try Data("LUT_3D_SIZE 2\n0 0 0\n".utf8).write(to: URL(fileURLWithPath: hostile))
            let short = try Self.render(data, ["dusk@1.0.0=\(hostile)"], in: folder, name: "e.jpg")
            #expect(
                short.bytes == nil && short.stderr.contains("filter_unreadable")
                    && short.stderr.contains("lut_short_table"), "\(short.stderr)")
            for malformed in ["dusk=\(Self.grayscale)", "dusk@1.0.0", "@1.0.0=\(Self.grayscale)", "dusk@one=x.cube"] {
                let refused = try Self.render(data, [malformed], in: folder, name: "f.jpg")
                #expect(refused.bytes == nil && refused.stderr.contains("--filter-file"), "\(malformed)")
            }
            #expect(!FileManager.default.fileExists(atPath: folder + "/a.jpg"))
        }
    }
}
