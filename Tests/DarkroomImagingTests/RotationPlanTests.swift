import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

@testable import DarkroomImaging

/// How rotations are planned: bands, tiles, budgets, and the frames operations see.
@Suite struct RotationPlanTests {
    static let photo = Fixtures.exifSample("gps/DSCN0010.jpg").path

    static func kind(_ plan: ResamplePlan) -> String {
        switch plan.mode {
        case .band: "band"
        case .tiles(_, _, let spill, _): "tiles-\(spill.rawValue)"
        }
    }

    /// Bands, tiles in memory and tiles in a file, one and two threads: the same bytes.
    @Test(arguments: [Orientation.up, .right])
    func outputIsIdenticalAcrossBudgets(orientation: Orientation) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let operationLists: [[ImageOperation]] = [
            [.rotate(Rotation(degrees: 2, window: .largestUpright))],
            [.rotate(Rotation(degrees: -7, window: .wholeCanvas, fill: RGBColor(red: 1, green: 0.5, blue: 0)))],
            [.rotate(Rotation(degrees: 2, window: .largestUpright)), .vignette(intensity: 1, radius: 1)],
            [
                .exposure(ev: 0.3), .rotate(Rotation(degrees: -30, window: .wholeCanvas, fill: .black)),
                .crop(PixelRect(x: 5, y: 7, width: 500, height: 400)), .unsharpMask(sigma: 1, intensity: 1),
            ],
            [.gaussianBlur(sigma: 1.5), .rotate(Rotation(degrees: 135, window: .largestUpright)), .orient(.left)],
        ]
        var kinds: Set<String> = []
        for operations in operationLists {
            var outputs: [Data] = []
            for (index, budget) in [1 << 30, 8 << 20, 3 << 20, 1200 << 10].enumerated() {
                var request = RenderRequest(
                    operations: operations, limits: RenderLimits(memoryBudget: budget), spillDirectory: folder.path)
                request.threads = index % 2 + 1
                let output = folder.file("out-\(budget).jpg")
                let result = try Renderer.render(request, input: Self.photo, output: output, orientation: orientation)
                #expect(result.plan.memory.total <= budget)
                kinds.formUnion(result.plan.resampling.map(Self.kind))
                outputs.append(try Data(contentsOf: URL(fileURLWithPath: output)))
            }
            #expect(outputs.allSatisfy { $0 == outputs[0] }, "\(operations.map(\.name)) \(outputs.map(\.count))")
        }
        #expect(kinds == ["band", "tiles-memory", "tiles-file"], "\(kinds)")
    }

    @Test func aBudgetTooSmallForTheRotationIsTheTypedError() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let request = RenderRequest(
            operations: [.rotate(Rotation(degrees: 2, window: .largestUpright))],
            limits: RenderLimits(memoryBudget: 256 << 10), spillDirectory: folder.path)
        #expect {
            _ = try Renderer.render(request, input: Self.photo, output: folder.file("out.jpg"), orientation: .up)
        } throws: { error in
            (error as? RenderError)?.code == .memoryBudgetExceeded
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.jpg")))
    }

    /// A band holds the rows an output row slants across: for the 2D sampler, a strip of 16
    /// output rows' (the taps' reach besides), in floats; for a lone turn's three shears, one
    /// output row's (four taps besides), in codes, skewed. A turn past 90° reads rows bottom-up
    /// and so always tiles.
    @Test func theBandIsTheSlantOfAnOutputRow() throws {
        let size = PixelSize(width: 6000, height: 4000)
        for (degrees, band) in [(2.0, true), (-4, true), (95, false), (180, false)] {
            for alone in [true, false] {
                let turn = ImageOperation.rotate(Rotation(degrees: degrees, window: .largestUpright))
                let geometry = try RenderGeometry(
                    storedSize: size, orientation: .up, operations: alone ? [turn] : [turn, .exposure(ev: 0.1)])
                let stage = try #require(geometry.resampleSteps.first)
                #expect(stage.step.streamsRows == band)
                let plan = try RenderPlanner.plan(
                    source: .jpeg(Self.header(size)), geometry: geometry, encoding: OutputEncoding(quality: 90),
                    limits: RenderLimits(memoryBudget: 64 << 20))
                let resample = plan.resampling[0]
                #expect(resample.method == (alone && band ? .shears : .bicubic))
                let theta = degrees * .pi / 180
                switch (band, resample.mode) {
                case (false, _):
                    #expect(Self.kind(resample) == "tiles-file")
                case (true, .band(let rows)) where alone:
                    // The columns the turn's rows reach: the output's, and the third pass's slant.
                    let columns = Double(stage.output.width) + abs(tan(theta / 2)) * Double(stage.output.height)
                    let slant = abs(sin(theta)) * columns
                    #expect(abs(Double(rows) - (slant + 5)) <= 3, "\(degrees)°: \(rows) rows")
                    #expect(resample.bytes >= rows * stage.output.width * 3)
                case (true, .band(let rows)):
                    let slant = Int((abs(sin(theta)) * Double(stage.output.width - 1) + cos(theta) * 15).rounded(.up))
                    #expect(rows == slant + 16)
                    #expect(resample.bytes >= rows * stage.input.width * 16)
                default:
                    Issue.record("\(degrees)°: \(resample)")
                }
                #expect(plan.memory.total <= 64 << 20)
            }
        }
    }

    /// A turn samples the input's own codes only when it is the whole render; beside a colour
    /// operation, a blur or another turn, linear light.
    @Test func aLoneTurnSamplesCodes() throws {
        let size = PixelSize(width: 600, height: 400)
        let turn = ImageOperation.rotate(Rotation(degrees: 2, window: .largestUpright))
        let cases: [([ImageOperation], Orientation, SampleSpace)] = [
            ([turn], .up, .codes),
            ([turn], .right, .codes),
            ([.crop(PixelRect(x: 10, y: 10, width: 500, height: 300)), turn, .orient(.upMirrored)], .up, .codes),
            ([.orient(.left), turn], .up, .codes),
            ([turn, .exposure(ev: 0)], .up, .linear),
            ([.sepia(intensity: 1), turn], .up, .linear),
            ([turn, .gaussianBlur(sigma: 1)], .up, .linear),
            ([turn, .gaussianBlur(sigma: 1), turn], .up, .linear),
        ]
        for (operations, orientation, space) in cases {
            let geometry = try RenderGeometry(storedSize: size, orientation: orientation, operations: operations)
            #expect(ResamplePlan.space(for: geometry) == space, "\(operations.map(\.name))")
            let plan = try RenderPlanner.plan(
                source: .jpeg(Self.header(size)), geometry: geometry, encoding: OutputEncoding(quality: 90),
                limits: RenderLimits(memoryBudget: 64 << 20))
            #expect(plan.resampling.allSatisfy { $0.space == space })
        }
    }

    static func header(_ size: PixelSize) -> JPEGHeader {
        JPEGHeader(
            width: size.width, height: size.height, components: 3, colorSpace: .ycbcr, isProgressive: false,
            samplingFactors: [
                .init(horizontal: 2, vertical: 2), .init(horizontal: 1, vertical: 1), .init(horizontal: 1, vertical: 1),
            ])
    }

    @Test func geometryStartsANewFrameAtEachTurn() throws {
        let size = PixelSize(width: 400, height: 300)
        // An orientation before anything else joins the source's: no resampling.
        let first = try RenderGeometry(
            storedSize: size, orientation: .up,
            operations: [.crop(PixelRect(x: 0, y: 0, width: 100, height: 50)), .orient(.right)])
        #expect(
            first.orientation == .right && first.resampleSteps.isEmpty
                && first.outputSize == PixelSize(width: 50, height: 100))
        // A rotation, a crop and an orientation: one resampling into a 20×30 frame.
        let joined = try RenderGeometry(
            storedSize: size, orientation: .up,
            operations: [
                .exposure(ev: 1),
                .rotate(Rotation(degrees: 3, window: .rect(PixelRect(x: -5, y: 0, width: 200, height: 100)))),
                .crop(PixelRect(x: 10, y: 10, width: 30, height: 20)), .orient(.left),
                .vignette(intensity: 1, radius: 1),
            ])
        #expect(joined.resampleSteps.count == 1)
        #expect(joined.outputSize == PixelSize(width: 20, height: 30))
        #expect(joined.steps.last?.canvas == PixelSize(width: 20, height: 30))
        // Not a number, or a window of nothing: the typed error.
        for rotation in [
            Rotation(degrees: .nan, window: .largestUpright), Rotation(degrees: 1e9, window: .wholeCanvas),
            Rotation(degrees: 5, window: .rect(PixelRect(x: 0, y: 0, width: 0, height: 10))),
            Rotation(degrees: 5, window: .rect(PixelRect(x: Int.max / 2, y: 0, width: 10, height: 10))),
        ] {
            #expect {
                _ = try RenderGeometry(storedSize: size, orientation: .up, operations: [.rotate(rotation)])
            } throws: { error in
                guard let error = error as? RenderError, error.code == .invalidRotation else { return false }
                return error.operationIndex == 0 && error.degrees?.bitPattern == rotation.degrees.bitPattern
                    && error.canvas == size
                    && error.code.rawValue == "invalid_rotation"
            }
        }
    }

    /// The largest upright rectangle lies inside the turned image; the whole canvas holds all of it.
    @Test func windowsFitTheTurnedImage() {
        let size = PixelSize(width: 600, height: 400)
        for degrees in stride(from: -170.0, through: 170, by: 7.5) {
            let theta = degrees * .pi / 180
            let turn = { (x: Double, y: Double) -> (Double, Double) in
                (x * cos(theta) + y * sin(theta), -x * sin(theta) + y * cos(theta))
            }
            let corners = [(-300.0, -200.0), (300, -200), (300, 200), (-300, 200)].map(turn)
            let whole = Rotation(degrees: degrees, window: .wholeCanvas).windowRect(on: size)
            for (x, y) in corners {
                #expect(Double(whole.x) - 300 <= x + 1e-6 && x - 1e-6 <= Double(whole.maxX) - 300, "\(degrees)°")
                #expect(Double(whole.y) - 200 <= y + 1e-6 && y - 1e-6 <= Double(whole.maxY) - 200, "\(degrees)°")
            }
            let inner = Rotation(degrees: degrees, window: .largestUpright).windowRect(on: size)
            #expect(inner.width > 0 && inner.height > 0)
            // Each inner corner, turned back, lies inside the unturned image.
            for (x, y) in [(inner.x, inner.y), (inner.maxX, inner.y), (inner.x, inner.maxY), (inner.maxX, inner.maxY)] {
                let px = Double(x) - 300
                let py = Double(y) - 200
                let back = (px * cos(theta) - py * sin(theta), px * sin(theta) + py * cos(theta))
                #expect(abs(back.0) <= 300 + 1e-6 && abs(back.1) <= 200 + 1e-6, "\(degrees)°")
            }
        }
    }
}
