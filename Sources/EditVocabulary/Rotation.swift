import Foundation

/// Turning the image as it stands at this step by any angle about its centre, then keeping a
/// window of the turned picture.
///
/// Output pixel (x, y) shows the input at
///   s = R·((x + W.x + 0.5, y + W.y + 0.5) − c) + c − (0.5, 0.5),  R = [[cos θ, −sin θ], [sin θ, cos θ]],
/// where c is the centre of the image at this step (width/2, height/2), W the window, and
/// coordinates run right and down from the top-left corner. So a positive θ turns the content
/// counter-clockwise as seen on screen. Samples are Catmull-Rom bicubic (see `BicubicSampler`),
/// in linear light or in the input's codes as the plan says (`ResamplePlan.space`); the window
/// may reach past the turned image, where `fill` shows.
public struct Rotation: Sendable, Hashable {
    /// What of the turned picture the output keeps.
    public enum Window: Sendable, Hashable {
        /// This rectangle, in the coordinates of the unturned image (origin top-left); it may
        /// reach past the image. The output has its size.
        case rect(PixelRect)
        /// The largest upright rectangle inside the turned image, centred (no fill shows).
        case largestUpright
        /// The whole turned image: its bounding box, centred, with `fill` in the corners.
        case wholeCanvas
    }

    /// Degrees; positive turns the content counter-clockwise on screen.
    public var degrees: Double
    public var window: Window
    /// What shows where the window reaches past the turned image, as 8-bit-style sRGB values
    /// in 0…1. nil extends the image's edge pixels instead (right for windows inside the image,
    /// where only the interpolation's reach may cross the edge).
    public var fill: RGBColor?

    public init(degrees: Double, window: Window, fill: RGBColor? = nil) {
        self.degrees = degrees
        self.window = window
        self.fill = fill
    }

    /// Radians. (Apple's `straightenAngle` turns the content clockwise when positive: pass its negation.)
    public init(radians: Double, window: Window, fill: RGBColor? = nil) {
        self.init(degrees: radians * 180 / .pi, window: window, fill: fill)
    }

    public var radians: Double { degrees * .pi / 180 }

    /// cos θ and sin θ, snapped to exactly 0 and ±1 at multiples of 90° so quarter turns take
    /// whole pixels.
    public var cosSin: (cos: Double, sin: Double) {
        func snap(_ value: Double) -> Double {
            if abs(value) < 1e-12 { return 0 }
            if abs(abs(value) - 1) < 1e-12 { return value < 0 ? -1 : 1 }
            return value
        }
        return (snap(cos(radians)), snap(sin(radians)))
    }

    /// The window on an image of `size`, in its (unturned) coordinates.
    public func windowRect(on size: PixelSize) -> PixelRect {
        let (c, s) = (abs(cosSin.cos), abs(cosSin.sin))
        let w = Double(size.width)
        let h = Double(size.height)
        switch window {
        case .rect(let rect):
            return rect
        case .wholeCanvas:
            return Self.centred(width: w * c + h * s, height: w * s + h * c, in: size, roundingUp: true)
        case .largestUpright:
            let fit = Self.largestUpright(width: w, height: h, cos: c, sin: s)
            return Self.centred(width: fit.width, height: fit.height, in: size, roundingUp: false)
        }
    }

    /// A rectangle of about `width` × `height` centred on the image: rounded to whole pixels
    /// of the image's own parity, so the centre stays exactly on the image's.
    public static func centred(width: Double, height: Double, in size: PixelSize, roundingUp: Bool) -> PixelRect {
        func side(_ value: Double, parity: Int) -> Int {
            // Tolerate the last bits of cos/sin so a quarter turn's box is the image's own size.
            var whole = Int(roundingUp ? (value - 1e-9).rounded(.up) : (value + 1e-9).rounded(.down))
            if (whole - parity) % 2 != 0 { whole += roundingUp ? 1 : -1 }
            return max(whole, 1)
        }
        let outWidth = side(width, parity: size.width)
        let outHeight = side(height, parity: size.height)
        return PixelRect(
            x: (size.width - outWidth) / 2, y: (size.height - outHeight) / 2, width: outWidth, height: outHeight)
    }

    /// The largest axis-aligned rectangle inside a `width` × `height` rectangle turned by an
    /// angle with these |cos| and |sin|.
    public static func largestUpright(width: Double, height: Double, cos: Double, sin: Double) -> (
        width: Double, height: Double
    ) {
        if sin < 1e-12 { return (width, height) }
        if cos < 1e-12 { return (height, width) }
        let long = max(width, height)
        let short = min(width, height)
        if short <= 2 * sin * cos * long || abs(sin - cos) < 1e-12 {
            // Two corners touch the long sides: a half-constrained fit.
            let half = 0.5 * short
            return width >= height ? (half / sin, half / cos) : (half / cos, half / sin)
        }
        let cos2 = cos * cos - sin * sin
        return ((width * cos - height * sin) / cos2, (height * cos - width * sin) / cos2)
    }
}
