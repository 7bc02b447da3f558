import ByteStreams
import DarkroomImaging
import Foundation
import JPEGTurbo

extension Renderer {
    /// File to file through the local streams, as `darkroom render` runs one, with the display
    /// copy at `displayAt` when given.
    static func render(
        _ request: RenderRequest, input: String, output: String, displayAt display: String? = nil,
        displayLongestSide: Int = RenderRequest.defaultDisplayLongestSide, orientation: Orientation
    ) throws -> RenderResult {
        let source = try FileSource(path: input)
        let upload = try FileUpload(finalPath: output)
        let renditions = try display.map {
            [RenditionUpload(.display(longestSide: displayLongestSide), to: try FileUpload(finalPath: $0))]
        }
        return try render(request, from: source, to: upload, renditions: renditions ?? [], orientation: orientation)
    }
}

/// A fresh folder under the system temporary directory, removed by `remove()`.
struct TemporaryFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "darkroom-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// Names of the files in the folder, hidden ones included.
    func contents() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path))?.sorted() ?? []
    }
}
