import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging

/// A rendition a render writes, with its definition's version (`darkroom.renditions`), which
/// its record keeps so that `rerender --stale` knows when a newer one replaced it.
public struct RenditionVersion: Sendable, Equatable, Codable {
    public var rendition: Rendition
    public var version: Int

    public init(_ rendition: Rendition, version: Int) {
        self.rendition = rendition
        self.version = version
    }

    /// What a library that defines no rendition writes: the display copy (version 1 in SQL).
    public static let builtIn = [RenditionVersion(.display(), version: 1)]

    /// A definition as SQL keeps it; nil for a value its checks would have refused.
    public init?(_ definition: RenditionDefinition) {
        guard let format = Rendition.Format(rawValue: definition.format),
            let metadata = Rendition.Metadata(rawValue: definition.metadata),
            let color = Rendition.Color(rawValue: definition.color), ["keep", "drop"].contains(definition.hdr)
        else { return nil }
        rendition = Rendition(
            name: definition.name, format: format, longestSide: definition.longestSide, quality: definition.quality,
            metadata: metadata, color: color, keepsHDR: definition.hdr == "keep")
        version = definition.version
    }
}

/// A rendition as a render wrote it: what its record lists (`darkroom.adjustment_renditions`).
public struct WrittenRendition: Sendable, Equatable {
    public var version: Int
    public var result: RenditionResult
    public var path: String

    /// `{"name":..,"version":..,"format":..,"path":..,"width":..,"height":..,"bytes":..}`.
    var json: String {
        let rendition = result.rendition
        return "{\"name\":\(JSONText.quoted(rendition.name)),\"version\":\(version),"
            + "\"format\":\(JSONText.quoted(rendition.format.rawValue)),\"path\":\(JSONText.quoted(path)),"
            + "\"width\":\(result.size.width),\"height\":\(result.size.height),\"bytes\":\(result.bytes)}"
    }
}
