/// EXIF orientation: how the stored pixels must be turned to stand upright.
/// The raw value is the EXIF tag value.
public enum Orientation: Int, Sendable, CaseIterable {
    case up = 1  // as stored
    case upMirrored = 2  // mirror left-right
    case down = 3  // rotate 180°
    case downMirrored = 4  // mirror top-bottom
    case leftMirrored = 5  // transpose
    case right = 6  // rotate 90° clockwise to display
    case rightMirrored = 7  // transverse
    case left = 8  // rotate 90° counter-clockwise to display

    /// Orientation from an EXIF value; anything outside 1…8 means "as stored".
    public init(exifValue: Int) {
        self = Orientation(rawValue: exifValue) ?? .up
    }

    /// Whether width and height swap (the four quarter-turn orientations).
    public var swapsAxes: Bool { rawValue >= 5 }

    /// Whether output rows come out in the order the decoder produces them, so the
    /// render can stream without a spill.
    public var streamsRows: Bool { self == .up || self == .upMirrored }

    public func orientedSize(of stored: PixelSize) -> PixelSize {
        swapsAxes ? stored.transposed : stored
    }

    /// The stored pixel shown at output pixel (x, y), as an affine map
    /// stored = origin + x·xStep + y·yStep, for an image stored at `stored` size.
    public func storedPixelMap(stored: PixelSize) -> AffinePixelMap {
        let w = stored.width - 1
        let h = stored.height - 1
        switch self {
        case .up: return AffinePixelMap(originX: 0, originY: 0, xStep: (1, 0), yStep: (0, 1))
        case .upMirrored: return AffinePixelMap(originX: w, originY: 0, xStep: (-1, 0), yStep: (0, 1))
        case .down: return AffinePixelMap(originX: w, originY: h, xStep: (-1, 0), yStep: (0, -1))
        case .downMirrored: return AffinePixelMap(originX: 0, originY: h, xStep: (1, 0), yStep: (0, -1))
        case .leftMirrored: return AffinePixelMap(originX: 0, originY: 0, xStep: (0, 1), yStep: (1, 0))
        case .right: return AffinePixelMap(originX: 0, originY: h, xStep: (0, -1), yStep: (1, 0))
        case .rightMirrored: return AffinePixelMap(originX: w, originY: h, xStep: (0, -1), yStep: (-1, 0))
        case .left: return AffinePixelMap(originX: w, originY: 0, xStep: (0, 1), yStep: (-1, 0))
        }
    }

    /// The stored rectangle whose pixels make up `outputRect` of the oriented image.
    public func storedRect(for outputRect: PixelRect, stored: PixelSize) -> PixelRect {
        let map = storedPixelMap(stored: stored)
        let a = map.stored(x: outputRect.x, y: outputRect.y)
        let b = map.stored(x: outputRect.maxX - 1, y: outputRect.maxY - 1)
        let minX = min(a.x, b.x)
        let minY = min(a.y, b.y)
        return PixelRect(x: minX, y: minY, width: max(a.x, b.x) - minX + 1, height: max(a.y, b.y) - minY + 1)
    }
}

/// stored = origin + x·xStep + y·yStep, in whole pixels.
public struct AffinePixelMap: Sendable, Equatable {
    public var originX: Int
    public var originY: Int
    public var xStep: (dx: Int, dy: Int)
    public var yStep: (dx: Int, dy: Int)

    public init(originX: Int, originY: Int, xStep: (Int, Int), yStep: (Int, Int)) {
        self.originX = originX
        self.originY = originY
        self.xStep = (xStep.0, xStep.1)
        self.yStep = (yStep.0, yStep.1)
    }

    public func stored(x: Int, y: Int) -> (x: Int, y: Int) {
        (originX + x * xStep.dx + y * yStep.dx, originY + x * xStep.dy + y * yStep.dy)
    }

    public static func == (lhs: AffinePixelMap, rhs: AffinePixelMap) -> Bool {
        lhs.originX == rhs.originX && lhs.originY == rhs.originY
            && lhs.xStep == rhs.xStep && lhs.yStep == rhs.yStep
    }
}

extension Orientation {
    /// This orientation, then `next` on the image it gives: one orientation of the stored pixels.
    public func followed(by next: Orientation) -> Orientation {
        // Dihedral transforms: the one whose pixel map is this map after next's, on a probe size
        // whose sides differ (so a quarter turn cannot pass for a flip).
        let probe = PixelSize(width: 2, height: 3)
        let first = storedPixelMap(stored: probe)
        let second = next.storedPixelMap(stored: orientedSize(of: probe))
        return Orientation.allCases.first { candidate in
            let map = candidate.storedPixelMap(stored: probe)
            let size = candidate.orientedSize(of: probe)
            guard size == next.orientedSize(of: orientedSize(of: probe)) else { return false }
            return (0..<size.height).allSatisfy { y in
                (0..<size.width).allSatisfy { x in
                    let middle = second.stored(x: x, y: y)
                    return map.stored(x: x, y: y) == first.stored(x: middle.x, y: middle.y)
                }
            }
        }!
    }

    /// The orientation that turns this one's output back into the stored pixels.
    public var inverse: Orientation { Orientation.allCases.first { followed(by: $0) == .up }! }

    /// Where `storedRect` of an image stored at `stored` lands once oriented.
    public func orientedRect(for storedRect: PixelRect, stored: PixelSize) -> PixelRect {
        inverse.storedRect(for: storedRect, stored: orientedSize(of: stored))
    }
}
