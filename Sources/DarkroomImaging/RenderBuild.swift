import Foundation

/// What this build of darkroom renders with: each operation's math version (`RenderMath`) and
/// the output settings. `rerender --stale` and the dashboard's stale count pass it, as JSON, to
/// SQL, which owns the comparison (`darkroom.stale_renders`) against the same two objects in
/// each adjustment record's `rendered_with` (the worker's `RenderProvenance`).
public struct RenderBuild: Sendable, Equatable {
    public var math: [String: Int]
    public var output: RenderOutput

    /// The renditions are not the build's: SQL compares each record's with the library's
    /// current definitions (`darkroom.current_renditions`).
    public init(math: [String: Int] = RenderMath.versions, quality: Int = OutputEncoding.defaultQuality) {
        self.math = math
        output = RenderOutput(encoding: OutputEncoding(quality: quality), displayLongestSide: nil)
    }

    /// `{"math":{...},"output":{...}}`.
    public var json: String { "{\"math\":\(RenderMath.json(math)),\"output\":\(output.json)}" }
}

/// The output settings of a render, as a record's `rendered_with.output` and a build keep them.
public struct RenderOutput: Sendable, Equatable {
    /// The colour profile every render is written in: the original's ICC profile, one built
    /// from its nclx, or sRGB (`OutputColorProfile`'s rule), named as records keep it.
    public static let colorProfile = "source"

    public var quality: Int
    /// "4:4:4" or "4:2:0".
    public var chroma: String
    public var colorProfile: String
    /// The display copy's longest side; nil for a layer written without one (and in a build).
    public var displayLongestSide: Int?

    public init(encoding: OutputEncoding, displayLongestSide: Int?) {
        quality = encoding.quality
        chroma = encoding.chromaSubsampling
        colorProfile = Self.colorProfile
        self.displayLongestSide = displayLongestSide
    }

    /// `{"chroma":..,"colour_profile":..,"display_longest_side":..,"quality":..}`.
    public var json: String {
        let object: [String: Any] = [
            "quality": quality, "chroma": chroma, "colour_profile": colorProfile,
            "display_longest_side": displayLongestSide.map { $0 as Any } ?? NSNull(),
        ]
        return JSONObject.text(object)
    }
}

extension RenderMath {
    /// `{"crop":1,...}`, names in order.
    public static func json(_ versions: [String: Int]) -> String { JSONObject.text(versions) }
}

/// A JSON object of strings, integers and nulls, keys sorted.
enum JSONObject {
    static func text(_ object: [String: Any]) -> String {
        // Only strings, integers and nulls: serialising cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
