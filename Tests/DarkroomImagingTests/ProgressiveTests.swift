import ByteStreams
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

/// Progressive files need libjpeg's whole-image coefficient buffer: planned for up front.
@Suite struct ProgressiveTests {
    /// A progressive copy of a sample photo, written by darkroom's own encoder.
    func progressiveSample(in folder: TemporaryFolder) throws -> String {
        let original = try DecodedImage(path: Fixtures.exifSample("gps/DSCN0010.jpg").path)
        let path = folder.file("progressive.jpg")
        try original.write(to: path, encoding: JPEGEncoding(quality: 90, fullChroma: false, progressive: true))
        return path
    }

    @Test func rendersWithinABudgetThatHoldsTheCoefficients() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try progressiveSample(in: folder)
        #expect(try JPEGDecoder(source: FileSource(path: input)).header.isProgressive)
        let request = RenderRequest(
            operations: [.sepia(intensity: 1)],
            limits: RenderLimits(memoryBudget: 8 << 20), spillDirectory: folder.path)
        let result = try Renderer.render(request, input: input, output: folder.file("out.jpg"), orientation: .right)
        #expect(result.plan.isProgressive && result.outputSize == PixelSize(width: 480, height: 640))
    }

    @Test func failsAtOnceWhenTheCoefficientsExceedTheBudget() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try progressiveSample(in: folder)
        // 640×480 at 4:2:0: 1.5 samples a pixel × 2 bytes ≈ 900 KiB of coefficients.
        let request = RenderRequest(
            operations: [],
            limits: RenderLimits(memoryBudget: 512 << 10), spillDirectory: folder.path)
        #expect {
            _ = try Renderer.render(request, input: input, output: folder.file("out.jpg"), orientation: .up)
        } throws: { error in
            guard let error = error as? RenderError, error.code == .memoryBudgetExceeded,
                let needed = error.bytesNeeded, let reason = error.operation
            else { return false }
            return needed > 900_000 && error.memoryBudget == 512 << 10 && reason.contains("progressive")
                && "\(error)".contains("raise --memory-budget")
        }
        #expect(folder.contents() == ["progressive.jpg"], "nothing written")
    }

    /// The scan bound (docs/hostile-input.md): a file with exactly `maxScans` scans renders,
    /// one scan more than the limit is refused.
    @Test func scanLimitAtTheBound() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try progressiveSample(in: folder)
        // Entropy-coded data stuffs every 0xFF with 0x00, so each FF DA is a start of scan.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input)))
        let scans = zip(bytes, bytes.dropFirst()).filter { $0 == (0xFF, 0xDA) }.count
        #expect(scans == 10)
        for (maxScans, renders) in [(scans, true), (scans - 1, false)] {
            let request = RenderRequest(
                operations: [], limits: RenderLimits(maxScans: maxScans), spillDirectory: folder.path)
            let rendered =
                (try? Renderer.render(request, input: input, output: folder.file("out.jpg"), orientation: .up)) != nil
            #expect(rendered == renders, "maxScans \(maxScans) with \(scans) scans")
        }
    }

    @Test func tooManyScansIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try progressiveSample(in: folder)
        let request = RenderRequest(
            operations: [],
            limits: RenderLimits(maxScans: 3), spillDirectory: folder.path)
        #expect {
            _ = try Renderer.render(request, input: input, output: folder.file("out.jpg"), orientation: .up)
        } throws: { "\($0)".contains("more than 3 scans") }
    }
}
