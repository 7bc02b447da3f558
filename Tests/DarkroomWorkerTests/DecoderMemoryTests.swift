import DarkroomImaging
import DarkroomTestSupport
import Foundation
import Synchronization
import Testing

@testable import DarkroomWorker

/// Honest prices, file by file: every photo of the corpus that renders is rendered again in a
/// decoding child at a budget just above its own plan, and the child's resident peak, less a
/// child's that rendered a tiny file of the same codec, stays within that budget and the code it
/// ran. A decoder the planner underprices (a depth, a chroma, an alpha plane, a gain map, a
/// progressive JPEG's coefficients) fails here.
/// `plan-rss-bench.sh` measures the same on a release build, with coded variants the corpus
/// lacks.
@Suite struct DecoderMemoryTests {
    static let rendered = CorpusTests.expectations.filter { $0.atDefault.hasPrefix("rendered") }

    /// The smallest files of each codec: a render of one holds next to nothing, so its child's
    /// peak is the fixed cost (the pages it shares with the zygote, the code that codec runs).
    static let tiny = [
        "jpg": "jpeg-decoder/reftest/mozilla/jpg-size-16x16.jpg", "heic": "pillow_heif/L_8__29x100.heif",
        "avif": "libavif/colors-animated-8bpc.avif",
    ]
    static let fixedCosts = Mutex<[String: Int]>([:])

    /// The code a render runs beyond the tiny file's: the resident peak counts each page of the
    /// program and its libraries a child touches, and a file with EXIF, a profile or a turn runs
    /// more of them. A 10×10 JPEG with an EXIF GPS block touched 1.4 MiB more than the 16×16 one
    /// (its smaps: the binary, libc, libm, libexif, libswiftCore), with 68 KiB more allocated; how
    /// much of a library a fault maps depends on what the page cache holds, so it varies by host.
    static let codeAllowance = 2 << 20

    static func kind(of file: String) -> String {
        switch (file as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": "jpg"
        case "avif": "avif"
        default: "heic"
        }
    }

    /// A render of the corpus's `file`, unedited, on one thread, at `budget` (the default's when nil).
    static func render(_ file: String, to output: String, budget: Int? = nil) -> FileRender {
        var settings = RenderSettings()
        settings.threads = 1
        if let budget { settings.memoryBudget = budget }
        return FileRender(
            inputPath: CorpusTests.folder.appendingPathComponent(file).path, outputPath: output,
            formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0", data: Array(#"{"operations":[]}"#.utf8),
            settings: settings)
    }

    /// The fixed cost of a child rendering a file of `kind`: the larger of two tiny renders.
    static func fixedCost(_ kind: String, in folder: String, sandbox: DecoderSandbox) throws -> Int {
        if let known = fixedCosts.withLock({ $0[kind] }) { return known }
        var peaks: [Int] = []
        for _ in 0..<2 {
            let child = try render(tiny[kind]!, to: folder + "/tiny.jpg").render(in: sandbox).childMemory
            peaks.append(try #require(child).peakBytes)
        }
        let fixed = peaks.max()!
        fixedCosts.withLock { $0[kind] = fixed }
        return fixed
    }

    /// The plan's price, rounded up to a MiB, and one MiB more: a child given its input and its
    /// output as files buffers no stream for the channel, so it prices what the worker would.
    static func budget(justAbove file: String, output: String) throws -> Int {
        let price = try render(file, to: output).plan().memory.total
        return (price + (1 << 20) - 1) / (1 << 20) * (1 << 20) + (1 << 20)
    }

    @Test func everyCodecOfTheCorpusIsMeasured() {
        let kinds = Set(Self.rendered.map { ($0.file as NSString).pathExtension.lowercased() })
        #expect(kinds.isSuperset(of: ["jpg", "heic", "avif"]), "\(kinds)")
        #expect(Self.rendered.count > 100)
    }

    @Test(arguments: rendered)
    func aChildHoldsNoMoreThanItsPlan(_ expectation: CorpusTests.Expectation) throws {
        let folder = NSTemporaryDirectory() + "darkroom-decoder-memory-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = folder + "/out.jpg"
        let budget = try Self.budget(justAbove: expectation.file, output: output)
        // A zygote of its own, gone with the test: another suite counts the zygotes it starts.
        let sandbox = DecoderSandbox(executable: DarkroomCommand.executable.path)
        let fixed = try Self.fixedCost(Self.kind(of: expectation.file), in: folder, sandbox: sandbox)
        let rendered = try Self.render(expectation.file, to: output, budget: budget).render(in: sandbox)
        let child = try #require(rendered.childMemory)
        let held = child.peakBytes - fixed
        let price = try #require(child.reservedBytes, "the child reserved no memory")
        #expect(price <= budget)
        #expect(
            held <= budget + Self.codeAllowance,
            "\(expectation.file): held \(held >> 10) KiB above a child's fixed cost, at a budget of \(budget >> 10) KiB (plan \(price >> 10) KiB) and \(Self.codeAllowance >> 10) KiB of code"
        )
    }
}
