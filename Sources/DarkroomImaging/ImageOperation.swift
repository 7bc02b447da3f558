/// One step of a render, already validated. Colour operations work on linear-light RGB;
/// positions are those of the oriented image as it stands at that step.
public enum ImageOperation: Sendable, Hashable {
    /// out = c · 2^ev
    case exposure(ev: Float)
    /// out = mix(c, clamp(M·c), intensity) with the classic sepia matrix M.
    case sepia(intensity: Float)
    /// out = c · max(0, 1 − intensity · smoothstep(|p − centre| / (halfDiagonal · radius)))
    case vignette(intensity: Float, radius: Float)
    /// Keeps `rect` of the image as it stands at this step.
    case crop(PixelRect)
    /// Y = Rec. 709 luma; c = mix(Y, c, saturation); c += brightness; c = (c − ½)·contrast + ½
    case colorControls(saturation: Float, brightness: Float, contrast: Float)
    /// out = M·c + offset
    case colorMatrix(ColorMatrix)
    /// Each sRGB-encoded channel v becomes round(v·(levels − 1)) / (levels − 1); levels 2…256.
    case posterize(levels: Int)
    /// One of darkroom's looks (matrix, then tone curve), mixed with the input by intensity.
    case photoEffect(PhotoEffect, intensity: Float)
    /// Pixels within `threshold` (linear-light distance) of the key colour become the background.
    case chromaKey(ChromaKey)

    public var name: String {
        switch self {
        case .exposure: "exposure"
        case .sepia: "sepia"
        case .vignette: "vignette"
        case .crop: "crop"
        case .colorControls: "colorControls"
        case .colorMatrix: "colorMatrix"
        case .posterize: "posterize"
        case .photoEffect: "photoEffect"
        case .chromaKey: "chromaKey"
        }
    }
}

/// A colour operation placed on the output: `canvas` is the image size the operation
/// sees and `offset` where output pixel (0, 0) lies on that canvas (crops that come
/// after an operation shift and shrink what it is applied to, not how it is computed).
public struct PlacedOperation: Sendable, Hashable {
    public var operation: ImageOperation
    public var canvas: PixelSize
    public var offsetX: Int
    public var offsetY: Int

    public init(operation: ImageOperation, canvas: PixelSize, offsetX: Int, offsetY: Int) {
        self.operation = operation
        self.canvas = canvas
        self.offsetX = offsetX
        self.offsetY = offsetY
    }
}

/// Where a render's pixels come from and where each operation applies.
public struct RenderGeometry: Sendable, Hashable {
    public var storedSize: PixelSize
    public var orientation: Orientation
    public var orientedSize: PixelSize
    /// The output, as a rectangle of the oriented image (all crops composed).
    public var outputRect: PixelRect
    /// The stored pixels the output needs.
    public var storedRect: PixelRect
    /// Colour operations, in order, each placed on the output.
    public var steps: [PlacedOperation]

    public var outputSize: PixelSize { outputRect.size }

    /// Composes the crops of `operations` and places every colour operation.
    /// Throws when a crop leaves the image it is applied to.
    public init(storedSize: PixelSize, orientation: Orientation, operations: [ImageOperation]) throws {
        self.storedSize = storedSize
        self.orientation = orientation
        orientedSize = orientation.orientedSize(of: storedSize)
        var canvas = PixelRect(size: orientedSize)
        var pending: [(ImageOperation, PixelRect)] = []
        for (index, operation) in operations.enumerated() {
            if case .crop(let rect) = operation {
                guard rect.width > 0, rect.height > 0, rect.x >= 0, rect.y >= 0,
                      rect.maxX <= canvas.width, rect.maxY <= canvas.height else {
                    throw RenderError.cropOutOfBounds(operationIndex: index, crop: rect, canvas: canvas.size)
                }
                canvas = PixelRect(x: canvas.x + rect.x, y: canvas.y + rect.y, width: rect.width, height: rect.height)
            } else {
                pending.append((operation, canvas))
            }
        }
        let output = canvas
        outputRect = output
        storedRect = orientation.storedRect(for: output, stored: storedSize)
        steps = pending.map { operation, canvas in
            PlacedOperation(operation: operation, canvas: canvas.size,
                            offsetX: output.x - canvas.x, offsetY: output.y - canvas.y)
        }
    }
}
