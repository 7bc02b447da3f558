import ByteStreams
import DarkroomAdjustments
import DarkroomImaging
import DarkroomMetadata
import Foundation

/// `darkroom render`: one file, no database. The same decoding of adjustment data, the
/// same orientation handling and EXIF rewriting as a worker's job, through the same streams:
/// a local file in, local files published whole or not at all out.
public struct FileRender {
    public var inputPath: String
    public var outputPath: String
    public var formatIdentifier: String
    public var formatVersion: String
    public var data: [UInt8]
    public var settings: RenderSettings
    /// nil: the orientation in the input's EXIF (none for a HEIF: it is decoded upright). Given,
    /// it is applied to the rows the decoder delivers.
    public var orientation: Orientation?
    public var spillDirectory: String
    /// Also write a display-size copy here, longest side `displayLongestSide`.
    public var displayOutputPath: String?
    public var displayLongestSide = RenderRequest.defaultDisplayLongestSide
    public var registry: EditorRegistry = .standard
    /// For a `com.apple.photo` edit: render its geometry and leave out what darkroom cannot
    /// reproduce (named in `appleWarning`), instead of refusing, as `worker --apple-geometry-only`.
    public var appleGeometryOnly = false
    /// The LUTs of the filters the data names (`--filter-file`); a filter without one is refused.
    public var filterFiles: [FilterFile] = []

    public init(
        inputPath: String, outputPath: String, formatIdentifier: String, formatVersion: String,
        data: [UInt8], settings: RenderSettings, orientation: Orientation? = nil,
        spillDirectory: String = NSTemporaryDirectory()
    ) {
        self.inputPath = inputPath
        self.outputPath = outputPath
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.data = data
        self.settings = settings
        self.orientation = orientation
        self.spillDirectory = spillDirectory
    }

    /// A `com.apple.photo` edit planned on the input's picture, as a worker plans it
    /// (`RenderJobRunner+Apple`); nil for other formats.
    public func applePlan() throws -> ApplePhotoPlan? {
        guard formatIdentifier == ApplePhotoFormat.identifier else { return nil }
        _ = try registry.editor(for: formatIdentifier, version: formatVersion)
        let header = try SourceHeader.read(from: try FileSource(path: inputPath))
        let pictureOrientation =
            header.carriesOwnOrientation
            ? Orientation(exifValue: MetadataReader.read(app1Payload: header.exifPayload).metadata.orientation) : .up
        return try ApplePhotoPlan(
            ApplePhotoFormat.decode(data), pictureSize: header.storedSize, pictureOrientation: pictureOrientation,
            geometryOnly: appleGeometryOnly)
    }

    func request(apple: ApplePhotoPlan?) throws -> RenderRequest {
        let operations =
            try apple?.geometry.operations()
            ?? FilterFile.attach(
                filterFiles, to: registry.operations(identifier: formatIdentifier, version: formatVersion, data: data))
        var request = RenderRequest(
            operations: operations,
            encoding: settings.encoding, huffman: settings.huffman, limits: settings.limits,
            spillDirectory: spillDirectory,
            rewriteExif: { original, size in
                let exif = try OutputExif.fitted(
                    app1Payload: original, pixelWidth: size.width, pixelHeight: size.height)
                return (exif.payload, exif.dropped)
            },
            threads: settings.threads)
        request.displayLongestSide = displayLongestSide
        return request
    }

    /// The given orientation, or else the one in the input's EXIF; for a HEIF, whose decoder
    /// turns it upright (`irot`/`imir`), none: its EXIF orientation is information only.
    func orientation(for header: SourceHeader, apple: ApplePhotoPlan?) -> Orientation {
        if let apple { return apple.geometry.orientation }
        if let orientation { return orientation }
        if header.carriesOwnOrientation { return .up }
        return Orientation(exifValue: MetadataReader.read(app1Payload: header.exifPayload).metadata.orientation)
    }

    /// The plan, without decoding a pixel. A missing or unreadable input throws `StreamError`.
    public func plan() throws -> RenderPlan {
        let apple = try applePlan()
        let input = try FileSource(path: inputPath)
        return try Renderer.plan(
            request(apple: apple), input: input, withDisplayCopy: displayOutputPath != nil,
            orientation: { orientation(for: $0, apple: apple) })
    }

    /// The plan in words, with the gain map's when `settings.hdr` keeps it (`darkroom render --explain`).
    public func explanation() throws -> String {
        let apple = try applePlan()
        let reopen: (() throws -> any ByteSource)? =
            settings.hdr == .keep ? { [inputPath] in try FileSource(path: inputPath) } : nil
        return try Renderer.explanation(
            request(apple: apple), input: try FileSource(path: inputPath), withDisplayCopy: displayOutputPath != nil,
            gainMapSource: reopen, orientation: { orientation(for: $0, apple: apple) })
    }

    /// Renders; the output (and display copy) appear only if the whole render succeeds.
    public func render() throws -> RenderResult {
        let apple = try applePlan()
        let request = try request(apple: apple)
        let input = try FileSource(path: inputPath)
        let output = try FileUpload(finalPath: outputPath)
        let display: FileUpload?
        do {
            display = try displayOutputPath.map { path throws(StreamError) in try FileUpload(finalPath: path) }
        } catch {
            output.abort()
            throw error
        }
        let reopen: (() throws -> any ByteSource)? =
            settings.hdr == .keep ? { [inputPath] in try FileSource(path: inputPath) } : nil
        return try Renderer.render(
            request, from: input, to: output, display: display, gainMapSource: reopen,
            orientation: { orientation(for: $0, apple: apple) })
    }
}
