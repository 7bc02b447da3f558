import ByteStreams
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

@Suite struct RenderTests {
    func request(_ operations: [ImageOperation] = [], budget: Int = 64 << 20, folder: TemporaryFolder) -> RenderRequest
    {
        RenderRequest(operations: operations, limits: RenderLimits(memoryBudget: budget), spillDirectory: folder.path)
    }

    /// A render whose input is damaged must fail, name the file, and leave nothing behind.
    func expectFailure(_ input: String, code: JPEGError.Code, mentioning text: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("out.jpg")
        #expect {
            _ = try Renderer.render(
                request([.sepia(intensity: 1)], folder: folder), input: input, output: output, orientation: .up)
        } throws: { error in
            guard let codec = (error as? RenderError)?.codecError, let jpeg = codec.cause as? JPEGError else {
                return false
            }
            return jpeg.code == code && jpeg.object == input && "\(error)".contains(text)
        }
        #expect(folder.contents().isEmpty, "a failed render leaves no file: \(folder.contents())")
    }

    @Test func corruptEntropyDataIsAnErrorNotGreyPixels() throws {
        try expectFailure(Fixtures.exifSample("corrupted.jpg").path, code: .damaged, mentioning: "Corrupt JPEG data")
    }

    @Test func truncatedFileFails() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let bytes = try Data(contentsOf: Fixtures.exifSample("gps/DSCN0010.jpg"))
        let truncated = folder.file("truncated.jpg")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        try expectFailure(truncated, code: .damaged, mentioning: "the file ends inside its scan data")
    }

    @Test func emptyAndTextFilesFail() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let empty = folder.file("empty.jpg")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        try expectFailure(empty, code: .corrupt, mentioning: "Empty input file")
        let text = folder.file("notes.jpg")
        try Data("shopping list\n".utf8).write(to: URL(fileURLWithPath: text))
        try expectFailure(text, code: .corrupt, mentioning: "Not a JPEG file")
    }

    /// Opening the input is the stream's business now: it fails before a render starts,
    /// naming the file, and nothing is written.
    @Test func missingOriginalFails() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = "/nonexistent/original.jpg"
        #expect {
            _ = try Renderer.render(
                request([.sepia(intensity: 1)], folder: folder), input: input, output: folder.file("out.jpg"),
                orientation: .up)
        } throws: { error in
            guard let stream = error as? StreamError else { return false }
            return stream.code == .notFound && stream.object == input && stream.systemErrno == ENOENT
                && "\(error)".contains("No such file")
        }
        #expect(folder.contents().isEmpty, "a failed render leaves no file: \(folder.contents())")
    }

    /// Chains for `outputIsIdenticalAcrossBudgets`: linear light throughout, and a filter that
    /// reads the codes, alone (writing codes) and before another step (writing linear light).
    static let chains: [[ImageOperation]] = {
        let look = FilterStep(
            name: "look", version: "1.0.0", table: FilterKernelTests.randomTable(kind: .cube, size: 17, seed: 5))
        return [
            [.exposure(ev: 0.5), .vignette(intensity: 1.5, radius: 0.8), .sepia(intensity: 0.7)],
            [.filter(look)], [.filter(look), .vignette(intensity: 1.5, radius: 0.8)],
        ]
    }()

    /// The same input and operations give the same bytes whatever the budget, strip
    /// height, spill kind or thread count.
    @Test(arguments: [Orientation.up, .right, .down], chains)
    func outputIsIdenticalAcrossBudgets(orientation: Orientation, operations: [ImageOperation]) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = Fixtures.exifSample("gps/DSCN0010.jpg").path
        var outputs: [Data] = []
        var plans: Set<Int> = []
        for (index, budget) in [512 << 10, 1 << 20, 4 << 20, 1 << 30].enumerated() {
            let output = folder.file("out-\(budget).jpg")
            var request = request(operations, budget: budget, folder: folder)
            request.threads = index % 2 + 1
            let result = try Renderer.render(request, input: input, output: output, orientation: orientation)
            plans.insert(result.plan.stripHeight)
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        #expect(plans.count > 1, "the budgets must lead to different strip heights")
        #expect(outputs.allSatisfy { $0 == outputs[0] })
    }

    @Test func keepsTheICCProfileAndWritesTheExifItIsGiven() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = Fixtures.exifSample("orientation/landscape_6.jpg").path
        let output = folder.file("out.jpg")
        var request = request(folder: folder)
        request.rewriteExif = { original, size, _ in
            #expect(size == PixelSize(width: 600, height: 450))
            return (original, [])
        }
        _ = try Renderer.render(request, input: input, output: output, orientation: .right)
        let original = try JPEGDecoder(source: FileSource(path: input)).header
        let rendered = try JPEGDecoder(source: FileSource(path: output)).header
        #expect(original.iccProfile != nil)
        #expect(rendered.iccProfile == original.iccProfile)
        #expect(rendered.exifPayload == original.exifPayload)
    }

    @Test func cropProducesTheRequestedRegion() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = Fixtures.exifSample("gps/DSCN0010.jpg").path
        let full = folder.file("full.jpg")
        let cropped = folder.file("cropped.jpg")
        _ = try Renderer.render(request(folder: folder), input: input, output: full, orientation: .right)
        let result = try Renderer.render(
            request([.crop(PixelRect(x: 100, y: 200, width: 64, height: 48))], folder: folder), input: input,
            output: cropped,
            orientation: .right)
        #expect(result.outputSize == PixelSize(width: 64, height: 48))
        let whole = try DecodedImage(path: full)
        let part = try DecodedImage(path: cropped)
        func region(x: Int, y: Int) -> DecodedImage {
            var pixels = [UInt8]()
            for row in y..<(y + 48) { for column in x..<(x + 64) { pixels += whole.pixel(column, row) } }
            return DecodedImage(width: 64, height: 48, pixels: pixels)
        }
        // Two lossy encodes at different block alignments differ by about 3 per sample;
        // the same region shifted by a few pixels differs far more.
        let difference = part.meanDifference(to: region(x: 100, y: 200))
        let shifted = part.meanDifference(to: region(x: 106, y: 204))
        #expect(difference < 5, "the crop matches the same region of the full render (\(difference))")
        #expect(shifted > difference * 2, "a shifted region must compare worse (\(shifted) vs \(difference))")
    }

    @Test func budgetTooSmallFailsUpFrontWithNoOutput() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("out.jpg")
        #expect(throws: RenderError.self) {
            _ = try Renderer.render(
                request(budget: 64 << 10, folder: folder), input: Fixtures.exifSample("gps/DSCN0010.jpg").path,
                output: output, orientation: .up)
        }
        #expect(folder.contents().isEmpty)
    }
}

@Suite struct CancellationTests {
    /// Cancelled after a few strips: the render stops and leaves no file, whether it
    /// streams or fills a spill, with one thread or two.
    @Test(arguments: [(Orientation.up, 1), (.up, 2), (.right, 1), (.right, 2)])
    func aCancelledRenderStopsAndLeavesNothing(orientation: Orientation, threads: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let checks = Counter()
        var request = RenderRequest(
            operations: [.sepia(intensity: 1)], limits: RenderLimits(memoryBudget: 1 << 20),
            spillDirectory: folder.path)
        request.threads = threads
        request.isCancelled = { checks.increment() > 3 }
        #expect(throws: RenderError.cancelled) {
            _ = try Renderer.render(
                request, input: Fixtures.exifSample("gps/DSCN0010.jpg").path, output: folder.file("out.jpg"),
                displayAt: folder.file("display.jpg"), orientation: orientation)
        }
        #expect(folder.contents().isEmpty, "\(folder.contents())")
    }
}

/// A thread-safe count of calls.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    /// Adds one and returns the new count.
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
