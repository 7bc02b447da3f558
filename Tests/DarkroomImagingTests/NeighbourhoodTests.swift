import DarkroomTestSupport
import Foundation
import Testing

@testable import DarkroomImaging

/// Rows from an array, as the decoded source would give them.
final class ArrayRows: LinearRowSource {
    let region: PixelRect
    private let pixels: [Float]
    private var next = 0

    init(region: PixelRect, pixels: [Float]) {
        self.region = region
        self.pixels = pixels
    }

    func nextRow(into row: UnsafeMutablePointer<Float>) throws {
        let width = region.width * 3
        for index in 0..<width { row[index] = pixels[next * width + index] }
        next += 1
    }
}

@Suite struct NeighbourhoodTests {
    @Test func kernelIsNormalisedAndTruncatedAtThreeSigma() {
        let kernel = GaussianKernel(sigma: 1.5)
        #expect(kernel.radius == 5)
        #expect(kernel.weights.count == 11)
        #expect(abs(kernel.weights.reduce(0, +) - 1) < 1e-6)
        #expect(kernel.weights[5] > kernel.weights[4] && kernel.weights[4] == kernel.weights[6])
        #expect(GaussianKernel(sigma: 0).weights == [1])
        #expect(GaussianKernel(sigma: 0.1).radius == 1)
    }

    /// Runs a stage over a single-channel image (the value repeated in r, g and b).
    func run(
        _ operation: ImageOperation, width: Int, height: Int, values: [Float],
        output: PixelRect? = nil
    ) throws -> [[Float]] {
        let canvas = PixelRect(x: 0, y: 0, width: width, height: height)
        let out = output ?? canvas
        let input = out.expanded(by: operation.halo).intersection(canvas)
        var pixels: [Float] = []
        for y in input.y..<input.maxY {
            for x in input.x..<input.maxX { pixels += Array(repeating: values[y * width + x], count: 3) }
        }
        let stage = GaussianRows(
            upstream: ArrayRows(region: input, pixels: pixels), operation: operation, canvas: canvas, output: out)
        var rows: [[Float]] = []
        var row = [Float](repeating: 0, count: out.width * 3)
        for _ in 0..<out.height {
            try row.withUnsafeMutableBufferPointer { try stage.nextRow(into: $0.baseAddress!) }
            rows.append(stride(from: 0, to: row.count, by: 3).map { row[$0] })
        }
        return rows
    }

    @Test func blurMatchesTheHandComputedConvolutionWithClampedEdges() throws {
        // A 5×3 image with one bright pixel at (0, 1), on the left edge.
        var values = [Float](repeating: 0, count: 15)
        values[1 * 5 + 0] = 1
        let rows = try run(.gaussianBlur(sigma: 0.5), width: 5, height: 3, values: values)
        let w = GaussianKernel(sigma: 0.5).weights  // radius 2: w[0...4]
        // Column 0 clamps: taps −2 and −1 read column 0 again, so its weight is w0+w1+w2.
        let edge = w[0] + w[1] + w[2]
        #expect(abs(rows[1][0] - edge * (w[2])) < 1e-6, "\(rows[1][0])")
        // Row 0 reads rows −2, −1 (clamped to row 0) and 0, 1, 2: the bright row 1 is tap +1.
        #expect(abs(rows[0][0] - edge * w[3]) < 1e-6)
        // Column 1: taps −2 (clamped to column 0) and −1 both read the bright pixel.
        #expect(abs(rows[1][1] - (w[0] + w[1]) * w[2]) < 1e-6)
        #expect(abs(rows[1][3] - 0) < 1e-9, "three columns away is beyond the radius")
    }

    @Test func flatImagesStayFlatUpToTheEdges() throws {
        let values = [Float](repeating: 0.4, count: 20 * 7)
        for operation in [ImageOperation.gaussianBlur(sigma: 3), .unsharpMask(sigma: 2, intensity: 2)] {
            for row in try run(operation, width: 20, height: 7, values: values) {
                #expect(row.allSatisfy { abs($0 - 0.4) < 1e-5 }, "\(operation.name): \(row)")
            }
        }
    }

    @Test func unsharpMaskAddsTheDetailBack() throws {
        var values = [Float](repeating: 0.2, count: 9 * 9)
        values[4 * 9 + 4] = 0.8
        let blurred = try run(.gaussianBlur(sigma: 1), width: 9, height: 9, values: values)
        let sharpened = try run(.unsharpMask(sigma: 1, intensity: 0.5), width: 9, height: 9, values: values)
        // out = c + 0.5·(c − blur)
        #expect(abs(sharpened[4][4] - (0.8 + 0.5 * (0.8 - blurred[4][4]))) < 1e-6)
        #expect(abs(sharpened[4][5] - (0.2 + 0.5 * (0.2 - blurred[4][5]))) < 1e-6)
    }

    @Test func aStageProducingPartOfTheCanvasMatchesTheWholeCanvas() throws {
        let values = (0..<(30 * 20)).map { Float(($0 * 37) % 101) / 100 }
        let whole = try run(.gaussianBlur(sigma: 2), width: 30, height: 20, values: values)
        let part = PixelRect(x: 5, y: 3, width: 12, height: 9)
        let cropped = try run(.gaussianBlur(sigma: 2), width: 30, height: 20, values: values, output: part)
        for y in 0..<part.height {
            for x in 0..<part.width {
                #expect(abs(cropped[y][x] - whole[y + part.y][x + part.x]) < 1e-6)
            }
        }
    }

    @Test func geometryWidensTheReadRectByEveryHalo() throws {
        let geometry = try RenderGeometry(
            storedSize: PixelSize(width: 100, height: 80), orientation: .up,
            operations: [
                .gaussianBlur(sigma: 1), .crop(PixelRect(x: 10, y: 10, width: 20, height: 20)),
                .unsharpMask(sigma: 2, intensity: 1), .crop(PixelRect(x: 0, y: 0, width: 10, height: 10)),
            ])
        // Output (10,10) 10×10; the unsharp mask (r 6) needs (4,4) 22×22, clamped by its
        // canvas (the first crop, (10,10) 20×20) to (10,10) 16×16; the blur (r 3) on the full
        // image widens that to (7,7) 22×22.
        #expect(geometry.outputRect == PixelRect(x: 10, y: 10, width: 10, height: 10))
        #expect(geometry.readRect == PixelRect(x: 7, y: 7, width: 22, height: 22))
        #expect(geometry.stages.count == 2)
    }

    /// The halo makes the rows of one strip independent of where strips start.
    @Test(arguments: [Orientation.up, .right])
    func blurredOutputIsIdenticalAcrossBudgetsAndThreads(orientation: Orientation) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = Fixtures.exifSample("gps/DSCN0010.jpg").path
        let operations: [ImageOperation] = [
            .gaussianBlur(sigma: 2.5), .crop(PixelRect(x: 3, y: 5, width: 300, height: 200)),
            .unsharpMask(sigma: 1, intensity: 1), .vignette(intensity: 1, radius: 1),
        ]
        var outputs: [Data] = []
        var heights: Set<Int> = []
        for (index, budget) in [600 << 10, 2 << 20, 1 << 30].enumerated() {
            let output = folder.file("out-\(budget).jpg")
            var request = RenderRequest(
                operations: operations,
                limits: RenderLimits(memoryBudget: budget), spillDirectory: folder.path)
            request.threads = index % 2 + 1
            heights.insert(
                try Renderer.render(request, input: input, output: output, orientation: orientation).plan.stripHeight)
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        #expect(heights.count > 1)
        #expect(outputs.allSatisfy { $0 == outputs[0] })
    }

    /// Blur then crop equals crop of the blurred image: compared through 4:4:4 quality-100
    /// JPEGs with the crop on the 8-pixel block grid, so the encodes line up block for block.
    @Test func blurBeforeCropSeesThePixelsTheCropDrops() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = Fixtures.exifSample("gps/DSCN0010.jpg").path
        func render(_ operations: [ImageOperation], _ name: String) throws -> DecodedImage {
            let request = RenderRequest(
                operations: operations,
                encoding: .init(quality: 100), spillDirectory: folder.path)
            _ = try Renderer.render(request, input: input, output: folder.file(name), orientation: .up)
            return try DecodedImage(path: folder.file(name))
        }
        let whole = try render([.gaussianBlur(sigma: 3)], "whole.jpg")
        let cropped = try render(
            [.gaussianBlur(sigma: 3), .crop(PixelRect(x: 64, y: 48, width: 128, height: 96))], "crop.jpg")
        var worst = 0
        for y in 0..<96 {
            for x in 0..<128 {
                let a = whole.pixel(x + 64, y + 48)
                let b = cropped.pixel(x, y)
                worst = max(worst, zip(a, b).map { abs(Int($0) - Int($1)) }.max()!)
            }
        }
        #expect(worst <= 1, "largest difference \(worst)")
    }
}
