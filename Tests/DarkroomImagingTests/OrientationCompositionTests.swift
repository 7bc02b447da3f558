import DarkroomImaging
import Testing

/// `followed(by:)`, `inverse` and `orientedRect`, which turn a HEIF's `irot`/`imir`/`clap` into one
/// orientation and a window, checked against turning a labelled image pixel by pixel.
@Suite struct OrientationCompositionTests {
    /// Every pixel of `image` (stored at `size`, labelled by index) as `orientation` shows it.
    static func orient(_ image: [Int], size: PixelSize, _ orientation: Orientation) -> (pixels: [Int], size: PixelSize)
    {
        let oriented = orientation.orientedSize(of: size)
        let map = orientation.storedPixelMap(stored: size)
        var pixels: [Int] = []
        for y in 0..<oriented.height {
            for x in 0..<oriented.width {
                let stored = map.stored(x: x, y: y)
                pixels.append(image[stored.y * size.width + stored.x])
            }
        }
        return (pixels, oriented)
    }

    static let size = PixelSize(width: 3, height: 5)
    static let image = Array(0..<15)

    @Test(arguments: Orientation.allCases)
    func followingIsTurningTwice(_ first: Orientation) {
        for second in Orientation.allCases {
            let once = Self.orient(Self.image, size: Self.size, first)
            let twice = Self.orient(once.pixels, size: once.size, second)
            let composed = Self.orient(Self.image, size: Self.size, first.followed(by: second))
            #expect(composed.pixels == twice.pixels && composed.size == twice.size, "\(first) then \(second)")
        }
        #expect(first.followed(by: first.inverse) == .up && first.inverse.followed(by: first) == .up)
    }

    @Test(arguments: Orientation.allCases)
    func aStoredRectangleLandsWhereItsPixelsDo(_ orientation: Orientation) {
        let rect = PixelRect(x: 1, y: 1, width: 2, height: 3)
        let landed = orientation.orientedRect(for: rect, stored: Self.size)
        // The oriented rectangle holds exactly the stored rectangle's pixels.
        let inside = Set(
            (rect.y..<rect.maxY).flatMap { y in (rect.x..<rect.maxX).map { x in y * Self.size.width + x } })
        let oriented = Self.orient(Self.image, size: Self.size, orientation)
        let shown = Set(
            (landed.y..<landed.maxY).flatMap { y in
                (landed.x..<landed.maxX).map { x in oriented.pixels[y * oriented.size.width + x] }
            })
        #expect(shown == inside && landed.width * landed.height == rect.width * rect.height)
        #expect(orientation.storedRect(for: landed, stored: Self.size) == rect)
    }
}
