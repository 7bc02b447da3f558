import DarkroomAdjustments
import DarkroomImaging

/// darkroom's own version: what `darkroom --version` prints and every adjustment record keeps.
public enum DarkroomRelease {
    public static let version = "0.24.0"
}

/// What made a render, kept with its adjustment record (`adjustments.rendered_with`): darkroom's
/// version, the math version of each operation used (`RenderMath`), the filter versions and
/// their LUTs' hashes, and the output settings. `darkroom rerender --stale` compares the math
/// and output settings with the worker's own.
public struct RenderProvenance: Sendable, Equatable {
    public var darkroom: String
    public var math: [String: Int]
    public var filters: [FilterStep]
    public var output: RenderOutput
    /// The HDR gain map the render carries (`--hdr keep` and an original with one); nil for a
    /// standard-range render.
    public var hdr: CarriedHDR?
    /// The renditions it wrote beside it (the top layer's), which SQL records
    /// (`darkroom.adjustment_renditions`).
    public var renditions: [WrittenRendition]

    public init(
        operations: [ImageOperation], settings: RenderSettings, renditions: [WrittenRendition],
        hdr: CarriedHDR? = nil
    ) {
        self.init(
            math: RenderMath.versions(of: operations),
            filters: operations.compactMap { if case .filter(let step) = $0 { step } else { nil } }, settings: settings,
            renditions: renditions, hdr: hdr)
    }

    /// From the operations' math versions and filters, as a sandboxed render reports them.
    init(
        math: [String: Int], filters: [FilterStep], settings: RenderSettings, renditions: [WrittenRendition],
        hdr: CarriedHDR?
    ) {
        darkroom = DarkroomRelease.version
        self.math = math
        self.filters = filters
        let display = renditions.first { $0.result.rendition.name == Rendition.displayName }
        output = RenderOutput(encoding: settings.encoding, displayLongestSide: display?.result.rendition.longestSide)
        self.hdr = hdr
        self.renditions = renditions
    }

    /// The record as JSON, keys in a fixed order.
    public var json: String {
        let filterJSON = filters.map { step in
            "{\"name\":\(JSONText.quoted(step.name)),\"version\":\(step.version.map(JSONText.quoted) ?? "null"),"
                + "\"sha256\":\(step.sha256.map(JSONText.quoted) ?? "null")}"
        }.joined(separator: ",")
        return
            "{\"darkroom\":\(JSONText.quoted(darkroom)),\"math\":\(RenderMath.json(math)),\"filters\":[\(filterJSON)],"
            + "\"output\":\(output.json),\"hdr\":\(hdrJSON),"
            + "\"renditions\":[\(renditions.map(\.json).joined(separator: ","))]}"
    }

    /// `false`, or what the render's gain map is: the original's format, the map's size, its headroom.
    var hdrJSON: String {
        guard let hdr else { return "false" }
        return "{\"gain_map\":\(JSONText.quoted(hdr.sourceFormat)),\"map_width\":\(hdr.mapSize.width),"
            + "\"map_height\":\(hdr.mapSize.height),\"headroom_stops\":\(hdr.headroomStops)}"
    }
}
