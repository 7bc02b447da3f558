import DarkroomAdjustments
import DarkroomImaging
import DarkroomMetadata
import Foundation
import JPEGTurbo

/// `darkroom render`: one file, no database. The same decoding of adjustment data, the
/// same orientation handling and EXIF rewriting as a worker's job.
public struct FileRender {
    public var inputPath: String
    public var outputPath: String
    public var formatIdentifier: String
    public var formatVersion: String
    public var data: [UInt8]
    public var settings: RenderSettings
    /// nil: the orientation in the input's EXIF.
    public var orientation: Orientation?
    public var spillDirectory: String
    /// Also write a display-size copy here, longest side `displayLongestSide`.
    public var displayOutputPath: String?
    public var displayLongestSide = 2048
    public var registry: EditorRegistry = .standard

    public init(inputPath: String, outputPath: String, formatIdentifier: String, formatVersion: String,
                data: [UInt8], settings: RenderSettings, orientation: Orientation? = nil,
                spillDirectory: String = NSTemporaryDirectory()) {
        self.inputPath = inputPath
        self.outputPath = outputPath
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.data = data
        self.settings = settings
        self.orientation = orientation
        self.spillDirectory = spillDirectory
    }

    func request() throws -> RenderRequest {
        var request = RenderRequest(
            inputPath: inputPath, outputPath: outputPath,
            operations: try registry.operations(identifier: formatIdentifier, version: formatVersion, data: data),
            encoding: settings.encoding, huffman: settings.huffman, limits: settings.limits,
            spillDirectory: spillDirectory,
            rewriteExif: { original, size in
                try OutputExif.rewrite(app1Payload: original, pixelWidth: size.width, pixelHeight: size.height)
            },
            threads: settings.threads)
        request.displayOutputPath = displayOutputPath
        request.displayLongestSide = displayLongestSide
        return request
    }

    func resolvedOrientation() throws -> Orientation {
        if let orientation { return orientation }
        let header = try JPEGDecoder(path: inputPath).header
        return Orientation(exifValue: MetadataReader.read(app1Payload: header.exifPayload).metadata.orientation)
    }

    /// The plan, without decoding a pixel.
    public func plan() throws -> RenderPlan {
        try wrapJPEG { try Renderer.plan(request(), orientation: resolvedOrientation()) }
    }

    public func render() throws -> RenderResult {
        try wrapJPEG { try Renderer.render(request(), orientation: resolvedOrientation()) }
    }

    private func wrapJPEG<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as JPEGError { throw RenderError.jpeg(error) }
    }
}
