import DarkroomTestSupport
import Foundation
import Testing

@testable import DarkroomImaging

/// Rotation by any angle through the whole renderer, against `RotationReference`.
@Suite struct RotationRenderTests {
    static let size = PixelSize(width: 96, height: 64)

    /// The synthetic picture as a 4:4:4 quality-100 JPEG, and the pixels it decodes to (what
    /// the renderer sees, so the reference starts from the same input).
    func syntheticInput(_ folder: TemporaryFolder) throws -> (path: String, pixels: DecodedImage) {
        let path = folder.file("in.jpg")
        try RotationReference.synthetic(width: Self.size.width, height: Self.size.height).write(to: path)
        return (path, try DecodedImage(path: path))
    }

    func render(
        _ operations: [ImageOperation], input: String, folder: TemporaryFolder, name: String,
        budget: Int = 256 << 20, orientation: Orientation = .up
    ) throws -> (image: DecodedImage, bytes: Data, plan: RenderPlan) {
        let request = RenderRequest(
            operations: operations, encoding: .init(quality: 100, fullChroma: true),
            limits: RenderLimits(memoryBudget: budget), spillDirectory: folder.path)
        let result = try Renderer.render(request, input: input, output: folder.file(name), orientation: orientation)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: folder.file(name)))
        return (try DecodedImage(path: folder.file(name)), bytes, result.plan)
    }

    static let referenceCases: [(degrees: Double, window: Rotation.Window, fill: RGBColor?)] = [
        (2, .largestUpright, nil),
        (-7, .rect(PixelRect(x: -10, y: 5, width: 90, height: 70)), RGBColor(red: 1, green: 1, blue: 1)),
        (33, .wholeCanvas, RGBColor(red: 0.2, green: 0.4, blue: 0.6)),
        (135, .wholeCanvas, RGBColor(red: 0, green: 0, blue: 0)),
        (-100, .rect(PixelRect(x: 20, y: 8, width: 40, height: 50)), nil),
        (-30, .wholeCanvas, nil),
        (44, .largestUpright, nil),
    ]

    /// A lone turn samples the 8-bit codes; with a colour operation beside it (an exposure of
    /// 0 EV, which changes nothing), linear light. Each matches the reference in its space: the
    /// 2D bicubic, or, for a lone turn by at most 45°, its three Catmull-Rom passes written out
    /// (`ShearedTurnTests.naive`).
    @Test(arguments: referenceCases.indices, [SampleSpace.codes, .linear])
    func matchesTheWholeImageReference(_ index: Int, space: SampleSpace) throws {
        let (degrees, window, fill) = Self.referenceCases[index]
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (path, pixels) = try syntheticInput(folder)
        let rotation = Rotation(degrees: degrees, window: window, fill: fill)
        let rect = rotation.windowRect(on: Self.size)
        let operations: [ImageOperation] =
            space == .codes ? [.rotate(rotation)] : [.rotate(rotation), .exposure(ev: 0)]
        let rendered = try render(operations, input: path, folder: folder, name: "out.jpg")
        #expect(rendered.plan.resampling.map(\.space) == [space])
        #expect(rendered.image.width == rect.width && rendered.image.height == rect.height)
        let sheared = space == .codes && abs(degrees) <= 45
        #expect(rendered.plan.resampling.map(\.method) == [sheared ? .shears : .bicubic])
        let reference =
            sheared
            ? ShearedTurnTests.naive(
                pixels.pixels,
                step: ResampleStep(
                    map: PixelAffine(rotation, on: Self.size), canvas: PixelRect(size: Self.size), size: rect.size,
                    fill: fill),
                output: PixelRect(size: rect.size)
            ).map(Double.init)
            : RotationReference.rotate(
                pixels, degrees: degrees, window: rect,
                fill: fill.map { [Double($0.red), Double($0.green), Double($0.blue)] }, in: space)
        let psnr = RotationReference.psnr(rendered.image, reference)
        #expect(psnr > 42, "\(degrees)° in \(space): \(psnr) dB")
    }

    /// A whole quarter turn lands every sample on a pixel centre: the same bytes as the exact
    /// orientation (and so, for 90°, positive angles turn counter-clockwise, as `.left` does).
    @Test func quarterTurnsEqualTheExactOrientations() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (path, _) = try syntheticInput(folder)
        let w = Self.size.width
        let h = Self.size.height
        let upright = PixelRect(x: (w - h) / 2, y: (h - w) / 2, width: h, height: w)
        let cases: [(Double, Rotation.Window, [ImageOperation])] = [
            (0, .rect(PixelRect(size: Self.size)), []),
            (90, .rect(upright), [.orient(.left)]),
            (90, .wholeCanvas, [.orient(.left)]),
            (-90, .largestUpright, [.orient(.right)]),
            (270, .wholeCanvas, [.orient(.right)]),
            (180, .wholeCanvas, [.orient(.down)]),
            (
                -180, .rect(PixelRect(x: 8, y: 4, width: 40, height: 30)),
                [.orient(.down), .crop(PixelRect(x: 8, y: 4, width: 40, height: 30))]
            ),
        ]
        for (index, (degrees, window, exact)) in cases.enumerated() {
            let turned = try render(
                [.rotate(Rotation(degrees: degrees, window: window))], input: path, folder: folder,
                name: "r\(index).jpg")
            let expected = try render(exact, input: path, folder: folder, name: "e\(index).jpg")
            #expect(turned.bytes == expected.bytes, "\(degrees)° \(window)")
        }
    }

    /// With no turn, a window is a crop: colour operations that depend on position (a
    /// vignette) see the same canvas before and after the step either way.
    @Test func aVignetteSeesTheRotatedFrame() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (path, _) = try syntheticInput(folder)
        let rect = PixelRect(x: 10, y: 6, width: 60, height: 40)
        let vignette = ImageOperation.vignette(intensity: 1.5, radius: 0.6)
        let rotate = ImageOperation.rotate(Rotation(degrees: 0, window: .rect(rect)))
        let pairs: [([ImageOperation], [ImageOperation])] = [
            ([rotate, vignette], [.crop(rect), vignette]),
            ([vignette, rotate], [vignette, .crop(rect)]),
            (
                [vignette, rotate, .orient(.upMirrored), vignette],
                [vignette, .crop(rect), .orient(.upMirrored), vignette]
            ),
        ]
        for (index, (turned, cropped)) in pairs.enumerated() {
            let a = try render(turned, input: path, folder: folder, name: "a\(index).jpg")
            let b = try render(cropped, input: path, folder: folder, name: "b\(index).jpg")
            #expect(a.bytes == b.bytes, "\(turned.map(\.name))")
        }
    }

    /// An orientation after a rotation joins it (one resampling): still the reference turned,
    /// then mirrored.
    @Test func anOrientationAfterARotationMirrorsItsOutput() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (path, pixels) = try syntheticInput(folder)
        let rotation = Rotation(degrees: 11, window: .largestUpright)
        let rendered = try render(
            [.rotate(rotation), .crop(PixelRect(x: 2, y: 3, width: 50, height: 30)), .orient(.upMirrored)], input: path,
            folder: folder, name: "out.jpg")
        #expect(rendered.plan.geometry.resampleSteps.count == 1)
        let window = rotation.windowRect(on: Self.size)
        #expect(rendered.plan.resampling.map(\.space) == [.codes])
        let turned = RotationReference.rotate(pixels, degrees: 11, window: window, fill: nil, in: .codes)
        var expected: [Double] = []
        for y in 0..<30 {
            for x in 0..<50 {
                let source = ((y + 3) * window.width + (2 + 49 - x)) * 3
                expected += turned[source..<(source + 3)]
            }
        }
        #expect(RotationReference.psnr(rendered.image, expected) > 42)
    }
}
