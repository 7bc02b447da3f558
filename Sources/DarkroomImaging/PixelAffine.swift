/// Where each output pixel of a geometric step samples its input:
/// s = (a·x + b·y + tx, c·x + d·y + ty), x and y whole output pixels, s in input pixels
/// (pixel centres at whole numbers) relative to the input image's top-left corner.
struct PixelAffine: Sendable, Hashable {
    var a: Double, b: Double, c: Double, d: Double
    var tx: Double, ty: Double

    /// A rotation's map on an image of `size` (see `Rotation`).
    init(_ rotation: Rotation, on size: PixelSize) {
        let (cos, sin) = rotation.cosSin
        let window = rotation.windowRect(on: size)
        let cx = Double(size.width) / 2
        let cy = Double(size.height) / 2
        let px = Double(window.x) + 0.5 - cx
        let py = Double(window.y) + 0.5 - cy
        self.init(
            a: cos, b: -sin, c: sin, d: cos,
            tx: (cos * px - sin * py) + (cx - 0.5), ty: (sin * px + cos * py) + (cy - 0.5))
    }

    /// An orientation's map: whole pixels, as `Orientation.storedPixelMap` gives them.
    init(_ orientation: Orientation, on size: PixelSize) {
        let map = orientation.storedPixelMap(stored: size)
        self.init(
            a: Double(map.xStep.dx), b: Double(map.yStep.dx), c: Double(map.xStep.dy), d: Double(map.yStep.dy),
            tx: Double(map.originX), ty: Double(map.originY))
    }

    init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    @inline(__always) func x(_ x: Int, _ y: Int) -> Double { a * Double(x) + (b * Double(y) + tx) }
    @inline(__always) func y(_ x: Int, _ y: Int) -> Double { c * Double(x) + (d * Double(y) + ty) }

    /// This map's output sampled in turn by `outer`, whose input pixel (0, 0) is this map's
    /// output pixel (`shiftX`, `shiftY`): one map from `outer`'s output to this map's input.
    func then(_ outer: PixelAffine, shiftX: Int, shiftY: Int) -> PixelAffine {
        let ox = outer.tx + Double(shiftX)
        let oy = outer.ty + Double(shiftY)
        return PixelAffine(
            a: a * outer.a + b * outer.c, b: a * outer.b + b * outer.d,
            c: c * outer.a + d * outer.c, d: c * outer.b + d * outer.d,
            tx: a * ox + b * oy + tx, ty: c * ox + d * oy + ty)
    }

    /// Whole input pixels whose samples reach the output rectangle `output`, before clamping to
    /// the image: the 2D sampler's taps reach 2 pixels, a `ShearedTurn`'s three passes at most
    /// 2 + (2 + 2·sin 45°)·tan 22.5° + 2 ≈ 5.4 across and 2 + 2·sin 45° ≈ 3.4 down; 6 each way,
    /// plus a pixel for rounding.
    func footprint(of output: PixelRect) -> (columns: ClosedRange<Int>, rows: ClosedRange<Int>) {
        let corners = [
            (output.x, output.y), (output.maxX - 1, output.y), (output.x, output.maxY - 1),
            (output.maxX - 1, output.maxY - 1),
        ]
        let xs = corners.map { x($0.0, $0.1) }
        let ys = corners.map { y($0.0, $0.1) }
        return (
            Int(xs.min()!.rounded(.down)) - 6...Int(xs.max()!.rounded(.down)) + 7,
            Int(ys.min()!.rounded(.down)) - 6...Int(ys.max()!.rounded(.down)) + 7
        )
    }
}
