import ArgumentParser
import DarkroomImaging

/// The bounds of the render options several commands take (`render`, `worker`, `rerender
/// --stale`), checked in one place against the ranges the renderer owns.
enum RenderOptionBounds {
    static func check(quality: Int) throws {
        let range = OutputEncoding.qualities
        guard range.contains(quality) else {
            throw ValidationError("--quality must be \(range.lowerBound)…\(range.upperBound)")
        }
    }

    static func check(displaySize: Int) throws {
        let range = RenderRequest.displayLongestSides
        guard range.contains(displaySize) else {
            throw ValidationError("--display-size must be \(range.lowerBound)…\(range.upperBound)")
        }
    }
}

/// `--rendition FORMAT:SIDE[:qQUALITY][:METADATA][:COLOR][:sdr]=PATH` of `darkroom render`.
struct RenditionArgument {
    var format: Rendition.Format
    var longestSide: Int
    var quality: Int?
    var metadata = Rendition.Metadata.all
    var color = Rendition.Color.source
    var keepsHDR: Bool
    var path: String

    init?(_ argument: String) {
        guard let equals = argument.firstIndex(of: "=") else { return nil }
        path = String(argument[argument.index(after: equals)...])
        let fields = argument[..<equals].split(separator: ":").map(String.init)
        guard !path.isEmpty, fields.count >= 2, let format = Rendition.Format(rawValue: fields[0]),
            let side = Int(fields[1]), RenderRequest.displayLongestSides.contains(side)
        else { return nil }
        self.format = format
        longestSide = side
        keepsHDR = format.carriesGainMap
        for field in fields.dropFirst(2) {
            if field.hasPrefix("q"), let quality = Int(field.dropFirst()), OutputEncoding.qualities.contains(quality) {
                self.quality = quality
            } else if let metadata = Rendition.Metadata(rawValue: field) {
                self.metadata = metadata
            } else if let color = Rendition.Color(rawValue: field) {
                self.color = color
            } else if field == "sdr" {
                keepsHDR = false
            } else {
                return nil
            }
        }
    }

    func rendition(named name: String) -> Rendition {
        Rendition(
            name: name, format: format, longestSide: longestSide, quality: quality, metadata: metadata, color: color,
            keepsHDR: keepsHDR)
    }
}
