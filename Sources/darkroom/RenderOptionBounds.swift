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
