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
    /// The output, as a rectangle of the oriented image (all crops composed).
    public var outputRect: PixelRect
    /// The upright pixels the render reads: the output plus the halos of its blurs.
    public var readRect: PixelRect
    /// The stored pixels behind `readRect`.
    public var storedRect: PixelRect
    /// Color operations placed on the output; the whole list when there is no blur.
    public var steps: [PlacedOperation]
    /// The render as stages: runs of color operations, each on the region it applies to,
    /// separated by neighbourhood operations.
    public var stages: [RenderStage]

    public var outputSize: PixelSize { outputRect.size }
    public var hasNeighbourhoodOperations: Bool {
        stages.contains { if case .neighbourhood = $0 { true } else { false } }
    }

    /// Composes the crops of `operations` and places every color operation. `window` is the
    /// picture within the oriented image when the source cuts one out of its rows (a HEIF's
    /// `clap`): operations see only it, as if it were the whole image.
    /// Throws when a crop leaves the image it is applied to, or a filter has no table.
    public init(
        storedSize: PixelSize, orientation: Orientation, window: PixelRect? = nil, operations: [ImageOperation]
    ) throws {
        self.storedSize = storedSize
        self.orientation = orientation
        orientedSize = orientation.orientedSize(of: storedSize)
        let whole = PixelRect(size: orientedSize)
        if let window {
            precondition(window.width > 0 && window.height > 0 && window.intersection(whole) == window)
        }
        // Forward: the canvas each operation sees.
        var canvas = window ?? whole
        var placed: [(ImageOperation, PixelRect)] = []
        for (index, operation) in operations.enumerated() {
            if case .crop(let rect) = operation {
                guard rect.width > 0, rect.height > 0, rect.x >= 0, rect.y >= 0,
                    rect.maxX <= canvas.width, rect.maxY <= canvas.height
                else {
                    throw RenderError.cropOutOfBounds(operationIndex: index, crop: rect, canvas: canvas.size)
                }
                canvas = PixelRect(x: canvas.x + rect.x, y: canvas.y + rect.y, width: rect.width, height: rect.height)
            } else {
                if case .filter(let step) = operation, step.table == nil {
                    throw RenderError.filterNotLoaded(operationIndex: index, filter: step.label)
                }
                placed.append((operation, canvas))
            }
        }
        let output = canvas
        outputRect = output
        // Backward: the region each operation must produce, widened by every halo before it.
        var regions = [PixelRect](repeating: output, count: placed.count + 1)
        var needed = output
        for index in placed.indices.reversed() {
            regions[index + 1] = needed
            let (operation, canvas) = placed[index]
            if operation.halo > 0 { needed = needed.expanded(by: operation.halo).intersection(canvas) }
            regions[index] = needed
        }
        readRect = needed
        storedRect = orientation.storedRect(for: needed, stored: storedSize)
        // Group into stages; color operations are placed on the region they run over.
        var stages: [RenderStage] = []
        var run: [PlacedOperation] = []
        var runRegion = needed
        for (index, (operation, canvas)) in placed.enumerated() {
            if operation.halo > 0 {
                stages.append(.color(run, region: runRegion))
                run = []
                runRegion = regions[index + 1]
                stages.append(.neighbourhood(operation, canvas: canvas, input: regions[index], output: runRegion))
            } else {
                run.append(
                    PlacedOperation(
                        operation: operation, canvas: canvas.size,
                        offsetX: runRegion.x - canvas.x, offsetY: runRegion.y - canvas.y))
            }
        }
        stages.append(.color(run, region: runRegion))
        self.stages = stages.filter { if case .color(let steps, _) = $0 { !steps.isEmpty } else { true } }
        steps = placed.map { operation, canvas in
            PlacedOperation(
                operation: operation, canvas: canvas.size,
                offsetX: output.x - canvas.x, offsetY: output.y - canvas.y)
        }
    }
}

/// A step of the row pipeline.
public enum RenderStage: Sendable, Hashable {
    /// Color operations applied in place to each row of `region`.
    case color([PlacedOperation], region: PixelRect)
    /// Reads rows of `input` (with its halo), writes rows of `output`; clamps at `canvas`.
    case neighbourhood(ImageOperation, canvas: PixelRect, input: PixelRect, output: PixelRect)
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
