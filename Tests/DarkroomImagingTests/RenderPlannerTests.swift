import JPEGTurbo
import Testing

@testable import DarkroomImaging

@Suite struct RenderPlannerTests {
    func header(_ width: Int, _ height: Int, progressive: Bool = false) -> JPEGHeader {
        JPEGHeader(
            width: width, height: height, components: 3, colorSpace: .ycbcr, isProgressive: progressive,
            samplingFactors: [
                .init(horizontal: 2, vertical: 2), .init(horizontal: 1, vertical: 1), .init(horizontal: 1, vertical: 1),
            ])
    }

    func plan(
        _ width: Int, _ height: Int, _ orientation: Orientation = .up, budget: Int,
        operations: [ImageOperation] = [], progressive: Bool = false,
        huffman: RenderPlanner.HuffmanOptimisation = .off
    ) throws -> RenderPlan {
        let geometry = try RenderGeometry(
            storedSize: PixelSize(width: width, height: height), orientation: orientation, operations: operations)
        return try RenderPlanner.plan(
            header: header(width, height, progressive: progressive), geometry: geometry,
            encoding: OutputEncoding(quality: 92), huffman: huffman,
            limits: RenderLimits(memoryBudget: budget))
    }

    @Test func stripsShrinkToFitTheBudgetAndStayInsideIt() throws {
        let roomy = try plan(6000, 4000, budget: 256 << 20)
        let tight = try plan(6000, 4000, budget: 4 << 20)
        #expect(roomy.stripHeight == 256 && roomy.spill == .none)
        #expect(tight.stripHeight < roomy.stripHeight)
        #expect(tight.memory.total <= 4 << 20)
    }

    @Test func quarterTurnsSpillToAFileWhenTheImageDoesNotFit() throws {
        let small = try plan(600, 450, .right, budget: 64 << 20)
        #expect(small.spill == .memory && small.tile != nil)
        let big = try plan(15000, 10000, .right, budget: 64 << 20)
        #expect(big.spill == .file)
        #expect(big.memory.total <= 64 << 20)
        #expect(big.geometry.outputSize == PixelSize(width: 10000, height: 15000))
        let flip = try plan(15000, 10000, .down, budget: 64 << 20)
        #expect(flip.tile?.width == 15000, "flips keep whole rows in a tile")
    }

    @Test func budgetTooSmallSaysWhatItNeeds() {
        #expect {
            _ = try plan(20000, 10000, budget: 1 << 20)
        } throws: { error in
            guard let error = error as? RenderError, error.code == .memoryBudgetExceeded,
                let needed = error.bytesNeeded, let budget = error.memoryBudget
            else { return false }
            return needed > budget && budget == 1 << 20 && error.isPermanent
        }
    }

    @Test func progressiveNeedsTheWholeCoefficientBuffer() throws {
        // 6000×4000 at 4:2:0: 1.5 samples a pixel × 2 bytes = 72 MB of coefficients.
        #expect(RenderPlanner.coefficientBytes(header(6000, 4000)) == 72_000_000)
        #expect(throws: RenderError.self) { _ = try plan(6000, 4000, budget: 64 << 20, progressive: true) }
        #expect(try plan(6000, 4000, budget: 128 << 20, progressive: true).memory.decoder > 72_000_000)
    }

    @Test func pixelLimitRefusesBombs() {
        let geometry = try! RenderGeometry(
            storedSize: PixelSize(width: 60000, height: 60000), orientation: .up, operations: [])
        #expect(throws: RenderError.imageTooLarge(pixels: 3_600_000_000, limit: RenderLimits.defaultMaxPixels)) {
            _ = try RenderPlanner.plan(
                header: header(60000, 60000), geometry: geometry,
                encoding: OutputEncoding(quality: 92), limits: RenderLimits())
        }
    }

    /// The pixel bound (docs/hostile-input.md), at the bound and one pixel past it.
    @Test func pixelLimitAtTheBound() throws {
        #expect(RenderLimits.defaultMaxPixels == 16383 * 16383)
        #expect(try plan(16383, 16383, budget: 256 << 20).geometry.storedSize.area == RenderLimits.defaultMaxPixels)
        // 268 402 690 = 10 × 26 840 269.
        #expect(
            throws: RenderError.imageTooLarge(
                pixels: RenderLimits.defaultMaxPixels + 1, limit: RenderLimits.defaultMaxPixels)
        ) {
            _ = try plan(10, 26_840_269, budget: 256 << 20)
        }
    }

    @Test func huffmanOptimisationOnlyWhereItFits() throws {
        #expect(try plan(6000, 4000, budget: 256 << 20, huffman: .auto).optimizeCoding)
        #expect(try !plan(6000, 4000, budget: 16 << 20, huffman: .auto).optimizeCoding)
        #expect(try !plan(6000, 4000, budget: 256 << 20).optimizeCoding)
        #expect(throws: RenderError.self) { _ = try plan(6000, 4000, budget: 16 << 20, huffman: .on) }
    }

    @Test func cropsComposeAndPlaceLaterOperations() throws {
        // Orientation 6 turns 40×30 into 30×40; crop 20×20 at (5,10), then 10×10 at (2,3).
        let geometry = try RenderGeometry(
            storedSize: PixelSize(width: 40, height: 30), orientation: .right,
            operations: [
                .exposure(ev: 1), .crop(PixelRect(x: 5, y: 10, width: 20, height: 20)),
                .sepia(intensity: 1), .crop(PixelRect(x: 2, y: 3, width: 10, height: 10)),
            ])
        #expect(geometry.outputRect == PixelRect(x: 7, y: 13, width: 10, height: 10))
        #expect(geometry.steps[0].canvas == PixelSize(width: 30, height: 40))
        #expect(geometry.steps[0].offsetX == 7 && geometry.steps[0].offsetY == 13)
        #expect(geometry.steps[1].canvas == PixelSize(width: 20, height: 20))
        #expect(geometry.steps[1].offsetX == 2 && geometry.steps[1].offsetY == 3)
        // Output (0,0) is upright (7,13): stored (13, 29 − 7 − 9) … the stored rect spans 10×10.
        #expect(geometry.storedRect.size == PixelSize(width: 10, height: 10))
        #expect(throws: RenderError.self) {
            _ = try RenderGeometry(
                storedSize: PixelSize(width: 40, height: 30), orientation: .up,
                operations: [.crop(PixelRect(x: 35, y: 0, width: 10, height: 10))])
        }
    }

    @Test func byteCountsParseAndPrint() {
        #expect(ByteCount.parse("64MiB") == 64 << 20)
        #expect(ByteCount.parse("1.5GiB") == 1_610_612_736)
        #expect(ByteCount.parse("512k") == 512 << 10)
        #expect(ByteCount.parse("1000") == 1000)
        #expect(ByteCount.parse("-5M") == nil)
        #expect(ByteCount.parse("lots") == nil)
        #expect(ByteCount.format(64 << 20) == "64 MiB")
        #expect(ByteCount.format(1536) == "1.5 KiB")
    }
}
