/// A color operation placed on the output: `canvas` is the image size the operation
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

extension ImageOperation {
    /// Rows and columns of neighbours each output pixel reads (0 for per-pixel operations;
    /// geometric operations are planned on their own).
    public var halo: Int {
        switch self {
        case .gaussianBlur(let sigma), .unsharpMask(let sigma, _): GaussianKernel.radius(sigma: sigma)
        default: 0
        }
    }
}
