import DarkroomImaging
import DarkroomTestSupport
import Foundation
import Testing

@Suite struct OrientationTests {
    @Test(arguments: Orientation.allCases)
    func pixelMapIsABijectionOntoTheStoredImage(orientation: Orientation) {
        let stored = PixelSize(width: 5, height: 3)
        let output = orientation.orientedSize(of: stored)
        let map = orientation.storedPixelMap(stored: stored)
        var seen = Set<Int>()
        for y in 0..<output.height {
            for x in 0..<output.width {
                let s = map.stored(x: x, y: y)
                #expect((0..<stored.width).contains(s.x) && (0..<stored.height).contains(s.y))
                seen.insert(s.y * stored.width + s.x)
            }
        }
        #expect(seen.count == stored.area)
    }

    @Test func quarterTurnsFollowTheExifDefinition() {
        let stored = PixelSize(width: 4, height: 2)
        // 6: the stored left column, read bottom to top, is the displayed top row.
        #expect(Orientation.right.storedPixelMap(stored: stored).stored(x: 0, y: 0) == (0, 1))
        #expect(Orientation.right.storedPixelMap(stored: stored).stored(x: 1, y: 0) == (0, 0))
        // 8: the stored right column, top to bottom, is the displayed top row.
        #expect(Orientation.left.storedPixelMap(stored: stored).stored(x: 0, y: 0) == (3, 0))
        #expect(Orientation.left.storedPixelMap(stored: stored).stored(x: 1, y: 0) == (3, 1))
        #expect(Orientation(exifValue: 0) == .up)
        #expect(Orientation(exifValue: 9) == .up)
    }

    /// The exif-samples set stores one picture under each orientation: rendered upright
    /// they must agree within JPEG noise. Small budgets force the file spill as well.
    /// landscape_1 is a separate, brighter encode (no ICC profile) and each file has its
    /// own digit drawn on it, so the comparison removes brightness and allows that noise:
    /// the same-content scores are 3 to 7, a mirrored image scores about 49.
    @Test(arguments: [256 << 20, 1 << 20])
    func allEightSampleOrientationsRenderUpright(budget: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var rendered: [DecodedImage] = []
        var spills: Set<SpillKind> = []
        for value in 1...8 {
            let input = Fixtures.exifSample("orientation/landscape_\(value).jpg").path
            let output = folder.file("landscape_\(value).jpg")
            let request = RenderRequest(
                operations: [],
                limits: RenderLimits(memoryBudget: budget), spillDirectory: folder.path)
            let result = try Renderer.render(
                request, input: input, output: output, orientation: Orientation(exifValue: value))
            spills.insert(result.plan.spill)
            rendered.append(try DecodedImage(path: output))
        }
        let reference = rendered[1]
        for (index, image) in rendered.enumerated() {
            #expect(
                image.width == 600 && image.height == 450, "orientation \(index + 1) is \(image.width)×\(image.height)")
            let difference = image.contentDifference(to: reference)
            #expect(difference < 10, "orientation \(index + 1) differs from orientation 2 by \(difference) per sample")
        }
        #expect(
            reference.mirrored().contentDifference(to: reference) > 30,
            "the comparison must tell a mirrored image apart")
        #expect(spills.contains(budget == 1 << 20 ? .file : .memory))
        // Only the output files remain: no partial or spill files are left behind.
        #expect(folder.contents() == (1...8).map { "landscape_\($0).jpg" }.sorted())
    }

    /// Exact pixel placement on a synthetic image with a distinct value per pixel.
    @Test(arguments: Orientation.allCases)
    func everyOrientationPlacesEveryPixel(orientation: Orientation) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // 4:4:4 quality 100 keeps flat 8×8 blocks exact; each block has its own color.
        let stored = PixelSize(width: 8 * 5, height: 8 * 3)
        var pixels = [UInt8](repeating: 0, count: stored.area * 3)
        for y in 0..<stored.height {
            for x in 0..<stored.width {
                let block = (y / 8) * 5 + x / 8
                pixels[(y * stored.width + x) * 3] = UInt8(block * 15)
                pixels[(y * stored.width + x) * 3 + 1] = UInt8(255 - block * 15)
                pixels[(y * stored.width + x) * 3 + 2] = 128
            }
        }
        let input = folder.file("blocks.jpg")
        try DecodedImage(width: stored.width, height: stored.height, pixels: pixels).write(to: input)
        let original = try DecodedImage(path: input)
        let output = folder.file("out.jpg")
        let request = RenderRequest(
            operations: [],
            encoding: .init(quality: 100), spillDirectory: folder.path)
        _ = try Renderer.render(request, input: input, output: output, orientation: orientation)
        let rendered = try DecodedImage(path: output)
        let expected = orientation.orientedSize(of: stored)
        #expect(rendered.width == expected.width && rendered.height == expected.height)
        let map = orientation.storedPixelMap(stored: stored)
        for (x, y) in [
            (3, 3), (12, 4), (expected.width - 4, 3), (4, expected.height - 4),
            (expected.width - 4, expected.height - 4),
        ] {
            let s = map.stored(x: x, y: y)
            let want = original.pixel(s.x, s.y).map(Int.init)
            let got = rendered.pixel(x, y).map(Int.init)
            #expect(
                zip(want, got).allSatisfy { abs($0 - $1) <= 2 },
                "output (\(x),\(y)) = \(got), stored (\(s.x),\(s.y)) = \(want)")
        }
    }
}
