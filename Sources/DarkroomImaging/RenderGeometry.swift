/// Where a render's pixels come from and where each operation applies.
///
/// Crops compose into one output rectangle. Neighbourhood operations (blurs) need a halo
/// around what they produce, so the render reads a larger rectangle (`readRect`) and each
/// blur narrows it again: a blur before a crop still sees the pixels the crop later drops,
/// up to the edges of the image it applies to, where it clamps.
public struct RenderGeometry: Sendable, Hashable {
    public var storedSize: PixelSize
    public var orientation: Orientation
    public var orientedSize: PixelSize
    /// The output, as a rectangle of the oriented image (all crops composed), or of the last
    /// rotation's output.
    public var outputRect: PixelRect
    /// The upright pixels the render reads: the output plus the halos of its blurs.
    public var readRect: PixelRect
    /// The stored pixels behind `readRect`.
    public var storedRect: PixelRect
    /// Color operations placed on the output; the whole list when there is no blur or rotation.
    public var steps: [PlacedOperation]
    /// The render as stages: runs of color operations, each on the region it applies to,
    /// separated by neighbourhood operations and resamplings.
    public var stages: [RenderStage]
    /// Every operation's name, in order (crops, turns and orientations included).
    public var operationNames: [String]

    public var outputSize: PixelSize { outputRect.size }
    public var hasBlurs: Bool {
        stages.contains { if case .neighbourhood = $0 { true } else { false } }
    }
    /// Blurs or resamplings: the render then pulls rows through the row chain.
    public var hasNeighbourhoodOperations: Bool {
        stages.contains { if case .color = $0 { false } else { true } }
    }
    public var resampleSteps: [(step: ResampleStep, input: PixelRect, output: PixelRect)] {
        stages.compactMap {
            if case .resample(let step, let input, let output) = $0 { (step, input, output) } else { nil }
        }
    }

    /// Composes the crops of `operations` and places every color operation. `window` is the
    /// picture within the oriented image when the source cuts one out of its rows (a HEIF's
    /// `clap`): operations see only it, as if it were the whole image. Orientations before any
    /// other operation join the source's; a rotation or later orientation starts a new frame:
    /// the operations after it see its output as the whole image.
    /// Throws when a crop leaves the image it is applied to, a rotation is not a number, or a filter
    /// has no table.
    public init(
        storedSize: PixelSize, orientation: Orientation, window: PixelRect? = nil, operations: [ImageOperation]
    ) throws {
        self.storedSize = storedSize
        operationNames = operations.map(\.name)
        var orientation = orientation
        var orientedSize = orientation.orientedSize(of: storedSize)
        let whole = PixelRect(size: orientedSize)
        if let window {
            precondition(window.width > 0 && window.height > 0 && window.intersection(whole) == window)
        }
        // Forward: the canvas each operation sees, in the frame it works in.
        var canvas = window ?? whole
        var items: [PlacedItem] = []
        for (index, operation) in operations.enumerated() {
            switch operation {
            case .crop(let rect):
                guard rect.width > 0, rect.height > 0, rect.x >= 0, rect.y >= 0,
                    rect.maxX <= canvas.width, rect.maxY <= canvas.height
                else {
                    throw RenderError.cropOutOfBounds(operationIndex: index, crop: rect, canvas: canvas.size)
                }
                canvas = PixelRect(x: canvas.x + rect.x, y: canvas.y + rect.y, width: rect.width, height: rect.height)
            case .orient(.up):
                break
            case .orient(let turn) where items.isEmpty:
                // Nothing has touched the pixels yet: the source's spill turns them, exactly.
                canvas = turn.orientedRect(for: canvas, stored: orientedSize)
                orientation = orientation.followed(by: turn)
                orientedSize = orientation.orientedSize(of: storedSize)
            case .orient(let turn):
                let step = ResampleStep(
                    map: PixelAffine(turn, on: canvas.size), canvas: canvas, size: turn.orientedSize(of: canvas.size),
                    fill: nil)
                if case .resample(let previous)? = items.last {
                    // Nothing between (crops only shift): one resampling from the rotation's input.
                    items[items.count - 1] = .resample(previous.followed(by: step))
                } else {
                    items.append(.resample(step))
                }
                canvas = PixelRect(size: step.size)
            case .rotate(let rotation):
                // The angle first: a window is worked out from it.
                let turns = rotation.degrees.isFinite && abs(rotation.degrees) <= Self.maxDegrees
                let rect = turns ? rotation.windowRect(on: canvas.size) : PixelRect(x: 0, y: 0, width: 0, height: 0)
                guard turns, rect.width > 0, rect.height > 0, rect.width <= Self.maxSide, rect.height <= Self.maxSide,
                    abs(rect.x) <= Self.maxSide, abs(rect.y) <= Self.maxSide
                else {
                    throw RenderError.invalidRotation(
                        operationIndex: index, degrees: rotation.degrees, window: rect, canvas: canvas.size)
                }
                items.append(
                    .resample(
                        ResampleStep(
                            map: PixelAffine(rotation, on: canvas.size), canvas: canvas, size: rect.size,
                            fill: rotation.fill)))
                canvas = PixelRect(size: rect.size)
            default:
                if case .filter(let step) = operation, step.table == nil {
                    throw RenderError.filterNotLoaded(operationIndex: index, filter: step.label)
                }
                items.append(.color(operation, canvas))
            }
        }
        self.orientation = orientation
        self.orientedSize = orientedSize
        let output = canvas
        outputRect = output
        // Backward: the region each operation must produce, widened by every halo and every
        // resampling's footprint before it.
        var regions = [PixelRect](repeating: output, count: items.count + 1)
        var needed = output
        for index in items.indices.reversed() {
            regions[index + 1] = needed
            switch items[index] {
            case .color(let operation, let canvas):
                if operation.halo > 0 { needed = needed.expanded(by: operation.halo).intersection(canvas) }
            case .resample(let step):
                needed = step.inputRegion(for: needed)
            }
            regions[index] = needed
        }
        readRect = needed
        storedRect = orientation.storedRect(for: needed, stored: storedSize)
        // Group into stages; color operations are placed on the region they run over.
        var stages: [RenderStage] = []
        var run: [PlacedOperation] = []
        var runRegion = needed
        for (index, item) in items.enumerated() {
            switch item {
            case .color(let operation, let canvas) where operation.halo > 0:
                stages.append(.color(run, region: runRegion))
                run = []
                runRegion = regions[index + 1]
                stages.append(.neighbourhood(operation, canvas: canvas, input: regions[index], output: runRegion))
            case .color(let operation, let canvas):
                run.append(
                    PlacedOperation(
                        operation: operation, canvas: canvas.size,
                        offsetX: runRegion.x - canvas.x, offsetY: runRegion.y - canvas.y))
            case .resample(let step):
                stages.append(.color(run, region: runRegion))
                run = []
                runRegion = regions[index + 1]
                stages.append(.resample(step, input: regions[index], output: runRegion))
            }
        }
        stages.append(.color(run, region: runRegion))
        self.stages = stages.filter { if case .color(let steps, _) = $0 { !steps.isEmpty } else { true } }
        steps = items.compactMap { item in
            guard case .color(let operation, let canvas) = item else { return nil }
            return PlacedOperation(
                operation: operation, canvas: canvas.size,
                offsetX: output.x - canvas.x, offsetY: output.y - canvas.y)
        }
    }

    /// Turns of more than this many degrees (ten turns) are not an edit.
    public static let maxDegrees: Double = 3600
    /// The longest side a rotation's window may have, and the farthest its corner may lie.
    public static let maxSide = 1 << 18
}

/// An operation with the canvas it applies to, or a geometric step.
private enum PlacedItem {
    case color(ImageOperation, PixelRect)
    case resample(ResampleStep)
}

/// A rotation or orientation (or both, joined): resamples `canvas` of the frame before it into
/// a new frame of `size`, output pixel (x, y) sampling `map`'s position relative to `canvas`.
public struct ResampleStep: Sendable, Hashable {
    var map: PixelAffine
    /// The image it turns, in the frame before.
    public var canvas: PixelRect
    public var size: PixelSize
    /// sRGB 0…1; nil extends the edges.
    public var fill: RGBColor?

    /// Whether output rows read input rows in order (|turn| < 90°, no flip of the rows), so
    /// a band of input rows can slide down the image.
    public var streamsRows: Bool { map.d > 1e-9 }

    /// This step, then `next` on part of its output (`next.canvas`): one step from this input.
    func followed(by next: ResampleStep) -> ResampleStep {
        ResampleStep(
            map: map.then(next.map, shiftX: next.canvas.x, shiftY: next.canvas.y), canvas: canvas, size: next.size,
            fill: fill)
    }

    /// The input pixels (in the frame before) the samples of `output` read, clamped to the image.
    func inputRegion(for output: PixelRect) -> PixelRect {
        let (columns, rows) = map.footprint(of: output)
        func clamp(_ range: ClosedRange<Int>, _ size: Int) -> (Int, Int) {
            let low = min(max(range.lowerBound, 0), size - 1)
            let high = max(min(range.upperBound, size - 1), low)
            return (low, high - low + 1)
        }
        let (x, width) = clamp(columns, canvas.width)
        let (y, height) = clamp(rows, canvas.height)
        return PixelRect(x: canvas.x + x, y: canvas.y + y, width: width, height: height)
    }
}

/// A step of the row pipeline.
public enum RenderStage: Sendable, Hashable {
    /// Color operations applied in place to each row of `region`.
    case color([PlacedOperation], region: PixelRect)
    /// Reads rows of `input` (with its halo), writes rows of `output`; clamps at `canvas`.
    case neighbourhood(ImageOperation, canvas: PixelRect, input: PixelRect, output: PixelRect)
    /// Reads rows of `input` (in the frame before), writes rows of `output` (in the step's frame).
    case resample(ResampleStep, input: PixelRect, output: PixelRect)
}

extension PixelRect {
    func expanded(by amount: Int) -> PixelRect {
        PixelRect(x: x - amount, y: y - amount, width: width + 2 * amount, height: height + 2 * amount)
    }

    func intersection(_ other: PixelRect) -> PixelRect {
        let left = Swift.max(x, other.x)
        let top = Swift.max(y, other.y)
        let right = Swift.min(maxX, other.maxX)
        let bottom = Swift.min(maxY, other.maxY)
        return PixelRect(x: left, y: top, width: Swift.max(0, right - left), height: Swift.max(0, bottom - top))
    }
}
