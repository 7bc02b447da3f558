import Foundation

/// What this build of darkroom renders with: each operation's math version (`RenderMath`) and
/// the output settings an adjustment record's `rendered_with` also holds. `rerender --stale`
/// and the dashboard's stale count pass it, as JSON, to SQL, which owns the comparison
/// (`darkroom.stale_renders`).
public struct RenderBuild: Sendable, Equatable {
    /// The colour profile every render is written in: the original's ICC profile, one built
    /// from its nclx, or sRGB (`OutputColorProfile`'s rule), named as records keep it.
    public static let colorProfile = "source"

    public var math: [String: Int]
    public var quality: Int
    public var displayLongestSide: Int

    public init(
        math: [String: Int] = RenderMath.versions, quality: Int = OutputEncoding.defaultQuality,
        displayLongestSide: Int = RenderRequest.defaultDisplayLongestSide
    ) {
        self.math = math
        self.quality = quality
        self.displayLongestSide = displayLongestSide
    }

    public var chroma: String { OutputEncoding(quality: quality).chromaSubsampling }

    /// `{"math":{...},"output":{"quality":..,"chroma":..,"colour_profile":..,"display_longest_side":..}}`.
    public var json: String {
        let object: [String: Any] = [
            "math": math,
            "output": [
                "quality": quality, "chroma": chroma, "colour_profile": Self.colorProfile,
                "display_longest_side": displayLongestSide,
            ] as [String: Any],
        ]
        // Only strings and integers: serialising cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
