import DarkroomTestSupport
import Foundation
import Testing

@testable import DarkroomImaging

@Suite struct DerivativeTests {
    @Test func displaySizeKeepsTheAspectAndNeverUpscales() {
        #expect(
            AreaResampler.displaySize(of: PixelSize(width: 6000, height: 4000), longestSide: 2048)
                == PixelSize(width: 2048, height: 1365))
        #expect(
            AreaResampler.displaySize(of: PixelSize(width: 4000, height: 6000), longestSide: 2048)
                == PixelSize(width: 1365, height: 2048))
        #expect(
            AreaResampler.displaySize(of: PixelSize(width: 640, height: 480), longestSide: 2048)
                == PixelSize(width: 640, height: 480))
        #expect(
            AreaResampler.displaySize(of: PixelSize(width: 20000, height: 10), longestSide: 100)
                == PixelSize(width: 100, height: 1))
    }

    @Test(arguments: [(7, 3), (6000, 2048), (10, 10), (5, 1)])
    func spansCoverEveryInputPixelOnce(input: Int, output: Int) {
        let spans = AreaResampler.spans(from: input, to: output)
        #expect(spans.count == output)
        var coverage = [Float](repeating: 0, count: input)
        for span in spans {
            #expect(abs(span.weights.reduce(0, +) - 1) < 1e-4)
            for (offset, weight) in span.weights.enumerated() { coverage[span.first + offset] += weight }
        }
        // Each input pixel is spread over the outputs in proportion output/input.
        let share = Float(output) / Float(input)
        #expect(coverage.allSatisfy { abs($0 - share) < 1e-4 })
    }

    @Test func halvingAveragesEachTwoByTwoBlockInLinearLight() throws {
        let resampler = AreaResampler(source: PixelSize(width: 4, height: 2), target: PixelSize(width: 2, height: 1))
        let rows = CollectedRows(width: 2)
        let fan = RenditionFan(output: resampler.source, sizes: [resampler.target], writers: [rows])
        // Left block: black and white → linear mean 0.5 → sRGB code 188. Right block: flat 100.
        let pixels: [UInt8] = [
            0, 0, 0, 255, 255, 255, 100, 100, 100, 100, 100, 100,
            255, 255, 255, 0, 0, 0, 100, 100, 100, 100, 100, 100,
        ]
        try pixels.withUnsafeBufferPointer { try fan.add(rows: 2, from: $0.baseAddress!) }
        try fan.finish()
        #expect(rows.rows == [[188, 188, 188, 100, 100, 100]])
    }

    @Test func renderWritesTheDisplayCopyBesideTheFullImage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let request = RenderRequest(operations: [.sepia(intensity: 1)], spillDirectory: folder.path)
        let result = try Renderer.render(
            request, input: Fixtures.exifSample("canon_hdr_NO.jpg").path, output: folder.file("full.jpg"),
            displayAt: folder.file("display.jpg"), displayLongestSide: 512, orientation: .right)
        #expect(result.displaySize == PixelSize(width: 384, height: 512))
        let full = try DecodedImage(path: folder.file("full.jpg"))
        let display = try DecodedImage(path: folder.file("display.jpg"))
        #expect(display.width == 384 && display.height == 512)
        // The copy is the full render scaled: their mean colors agree.
        for (a, b) in zip(full.channelMeans(), display.channelMeans()) {
            #expect(abs(a - b) < 2, "\(a) vs \(b)")
        }
        #expect(folder.contents() == ["display.jpg", "full.jpg"])
    }
}

/// The rows a rendition's downscaler emits, kept.
final class CollectedRows: RenditionWriter {
    let width: Int
    private(set) var rows: [[UInt8]] = []
    init(width: Int) { self.width = width }
    func write(row: UnsafePointer<UInt8>) throws {
        rows.append(Array(UnsafeBufferPointer(start: row, count: width * 3)))
    }
    func finish() throws {}
}
