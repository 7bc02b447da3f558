import DarkroomImaging
import DarkroomTestSupport
import Foundation

/// The rotation written the slow, obvious way, whole image in memory, in doubles: for every
/// output pixel the position the `Rotation` doc comment gives, a Catmull-Rom kernel evaluated
/// by distance in linear light (or in the 8-bit codes, as a lone turn samples) with the edges
/// extended, then mixed with the fill by how much of a pixel-sized box there lies inside the
/// image. Independent of the renderer's strips, bands, tiles, weight polynomials and tables.
enum RotationReference {
    static func toLinear(_ code: Double) -> Double {
        let v = code / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    static func toCode(_ linear: Double) -> Double {
        let v = min(max(linear, 0), 1)
        return 255 * (v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055)
    }

    /// Keys' cubic convolution kernel with a = −½.
    static func kernel(_ distance: Double) -> Double {
        let t = abs(distance)
        if t < 1 { return 1.5 * t * t * t - 2.5 * t * t + 1 }
        if t < 2 { return -0.5 * t * t * t + 2.5 * t * t - 4 * t + 2 }
        return 0
    }

    /// sRGB codes (as doubles, unrounded) of the image turned by `degrees` (counter-clockwise
    /// on screen) about its centre, window `window`; `fill` in sRGB 0…1 or nil for extended edges;
    /// interpolated in `space`.
    static func rotate(
        _ image: DecodedImage, degrees: Double, window: PixelRect, fill: [Double]?, in space: SampleSpace
    ) -> [Double] {
        let toLinear = space == .linear ? toLinear : { $0 }
        let toCode = space == .linear ? toCode : { min(max($0, 0), 255) }
        let theta = degrees * .pi / 180
        let centreX = Double(image.width) / 2
        let centreY = Double(image.height) / 2
        let linear = image.pixels.map { toLinear(Double($0)) }
        let fillLinear = fill.map { $0.map { toLinear($0 * 255) } }
        var out: [Double] = []
        for y in 0..<window.height {
            for x in 0..<window.width {
                // Where this output pixel's centre was before the turn (content turned by +θ
                // counter-clockwise on a y-down screen is sampled with the opposite turn).
                let px = Double(x + window.x) + 0.5 - centreX
                let py = Double(y + window.y) + 0.5 - centreY
                let sx = px * cos(theta) - py * sin(theta) + centreX - 0.5
                let sy = px * sin(theta) + py * cos(theta) + centreY - 0.5
                var value = [0.0, 0.0, 0.0]
                let baseX = Int(sx.rounded(.down))
                let baseY = Int(sy.rounded(.down))
                for j in (baseY - 1)...(baseY + 2) {
                    for i in (baseX - 1)...(baseX + 2) {
                        let weight = kernel(sx - Double(i)) * kernel(sy - Double(j))
                        let cx = min(max(i, 0), image.width - 1)
                        let cy = min(max(j, 0), image.height - 1)
                        for c in 0..<3 { value[c] += weight * linear[(cy * image.width + cx) * 3 + c] }
                    }
                }
                if let fillLinear {
                    func inside(_ s: Double, _ size: Int) -> Double {
                        max(0, min(s + 0.5, Double(size) - 0.5) - max(s - 0.5, -0.5))
                    }
                    let coverage = min(inside(sx, image.width), 1) * min(inside(sy, image.height), 1)
                    for c in 0..<3 { value[c] = value[c] * coverage + fillLinear[c] * (1 - coverage) }
                }
                out += value.map(toCode)
            }
        }
        return out
    }

    /// Peak signal-to-noise ratio of `image` against reference codes, in dB.
    static func psnr(_ image: DecodedImage, _ reference: [Double]) -> Double {
        precondition(image.pixels.count == reference.count)
        var total = 0.0
        for (a, b) in zip(image.pixels, reference) { total += (Double(a) - b) * (Double(a) - b) }
        let mse = total / Double(reference.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// A synthetic picture with smooth gradients, hard edges and fine lines, so interpolation
    /// errors show.
    static func synthetic(width: Int, height: Int) -> DecodedImage {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let disc = hypot(Double(x) - Double(width) * 0.6, Double(y) - Double(height) * 0.4) < Double(height) / 4
                let r = disc ? 230 : 40 + 180 * x / max(width - 1, 1)
                let g = (x / 6 + y / 6) % 2 == 0 ? 200 : 60
                let b = x % 7 == 0 || y % 5 == 0 ? 250 : 20 + 200 * y / max(height - 1, 1)
                pixels += [UInt8(r), UInt8(g), UInt8(b)]
            }
        }
        return DecodedImage(width: width, height: height, pixels: pixels)
    }
}
