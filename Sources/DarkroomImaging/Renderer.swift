import JPEGTurbo

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One render: an original, the operations to apply, and where the JPEG goes.
public struct RenderRequest: Sendable {
    public var inputPath: String
    public var outputPath: String
    public var operations: [ImageOperation]
    public var encoding: JPEGEncoding
    public var huffman: RenderPlanner.HuffmanOptimisation
    public var limits: RenderLimits
    /// Where a spill file may go (the storage root's tmp folder, or TMPDIR).
    public var spillDirectory: String
    /// Builds the output's EXIF (APP1 payload) from the original's and the new size;
    /// nil writes none. Thrown errors become warnings: metadata never fails a render.
    public var rewriteExif: @Sendable (_ original: [UInt8], _ outputSize: PixelSize) throws -> [UInt8]?
    public var keepICCProfile: Bool
    /// Also write a display-size JPEG (PhotoKit's displaySizeImage) here: the same render
    /// scaled so its longest side is `displayLongestSide`.
    public var displayOutputPath: String?
    public var displayLongestSide: Int = 2048
    /// Checked between strips: returning true stops the render with `RenderError.cancelled`
    /// and leaves no output.
    public var isCancelled: @Sendable () -> Bool = { false }
    /// 2: the JPEG encoder runs on a second thread. A worker running as many jobs as
    /// there are cores uses 1; a lone render uses 2.
    public var threads: Int

    public init(
        inputPath: String, outputPath: String, operations: [ImageOperation],
        encoding: JPEGEncoding = JPEGEncoding(quality: 92), huffman: RenderPlanner.HuffmanOptimisation = .off,
        limits: RenderLimits = RenderLimits(), spillDirectory: String,
        rewriteExif: @escaping @Sendable ([UInt8], PixelSize) throws -> [UInt8]? = { _, _ in nil },
        keepICCProfile: Bool = true, threads: Int = 1
    ) {
        self.inputPath = inputPath
        self.outputPath = outputPath
        self.operations = operations
        self.encoding = encoding
        self.huffman = huffman
        self.limits = limits
        self.spillDirectory = spillDirectory
        self.rewriteExif = rewriteExif
        self.keepICCProfile = keepICCProfile
        self.threads = threads
    }
}

public struct RenderResult: Sendable {
    public var plan: RenderPlan
    public var outputSize: PixelSize
    public var outputBytes: Int
    /// The display-size JPEG, when one was asked for.
    public var displaySize: PixelSize?
    public var displayBytes: Int?
    /// Things that went wrong without spoiling the pixels (unreadable EXIF, ...).
    public var warnings: [String]
}

public enum Renderer {
    /// Reads the header and plans, without decoding pixels.
    public static func plan(_ request: RenderRequest, orientation: Orientation) throws -> RenderPlan {
        let decoder = try openDecoder(request.inputPath, maxScans: request.limits.maxScans)
        return try plan(request, header: decoder.header, orientation: orientation)
    }

    /// Renders `request.inputPath` to `request.outputPath`. The output appears whole or not
    /// at all: pixels go to a temporary file beside it, which is synced and renamed.
    /// `orientation` is the original's EXIF orientation, applied to the pixels.
    public static func render(_ request: RenderRequest, orientation: Orientation) throws -> RenderResult {
        let decoder = try openDecoder(request.inputPath, maxScans: request.limits.maxScans)
        let plan = try plan(request, header: decoder.header, orientation: orientation)
        let output = plan.geometry.outputSize
        let temporary = try AtomicOutput(finalPath: request.outputPath)
        let display = try request.displayOutputPath.map { try AtomicOutput(finalPath: $0) }
        var warnings: [String] = []
        do {
            let encoder = try wrap { try JPEGEncoder(path: temporary.temporaryPath) }
            let encoding = JPEGEncoding(quality: request.encoding.quality, fullChroma: request.encoding.fullChroma,
                                        optimizeCoding: plan.optimizeCoding)
            try wrap {
                _ = try decoder.start()
                try encoder.start(width: output.width, height: output.height, encoding: encoding)
            }
            try writeMetadata(to: encoder, size: output, request: request, header: decoder.header, warnings: &warnings)
            var derivative: Derivative?
            if let display, let size = plan.displaySize {
                let displayEncoder = try wrap { try JPEGEncoder(path: display.temporaryPath) }
                try wrap { try displayEncoder.start(width: size.width, height: size.height, encoding: encoding) }
                try writeMetadata(to: displayEncoder, size: size, request: request, header: decoder.header, warnings: &warnings)
                derivative = Derivative(encoder: displayEncoder, resampler: AreaResampler(source: output, target: size))
            }
            try StripPipeline(plan: plan, decoder: decoder, encoder: encoder, spillDirectory: request.spillDirectory,
                              threads: request.threads, derivative: derivative, isCancelled: request.isCancelled).run()
            try wrap {
                // Read what is left so damage after the last needed row is still caught.
                let remaining = decoder.outputHeight - decoder.nextRow
                if remaining > 0 { try decoder.skipRows(remaining) }
                try decoder.finish()
                try encoder.finish(sync: true)
                try derivative?.encoder.finish(sync: true)
            }
            let bytes = try temporary.commit()
            let displayBytes = try display?.commit()
            return RenderResult(plan: plan, outputSize: output, outputBytes: bytes,
                                displaySize: display == nil ? nil : plan.displaySize, displayBytes: displayBytes, warnings: warnings)
        } catch {
            temporary.discard()
            display?.discard()
            throw error
        }
    }

    /// EXIF (rewritten for `size`) and the ICC profile, before the first row.
    static func writeMetadata(to encoder: JPEGEncoder, size: PixelSize, request: RenderRequest, header: JPEGHeader,
                              warnings: inout [String]) throws {
        if let original = header.exifPayload {
            do {
                if let exif = try request.rewriteExif(original, size) {
                    try wrap { try encoder.writeMarker(app: 1, payload: exif) }
                }
            } catch let error as RenderError {
                throw error
            } catch {
                // The display copy fails the same way as the full render: say it once.
                let warning = "EXIF not copied to the render: \(error)"
                if !warnings.contains(warning) { warnings.append(warning) }
            }
        }
        if request.keepICCProfile, let profile = header.iccProfile {
            try wrap { try encoder.writeICCProfile(profile) }
        }
    }

    static func plan(_ request: RenderRequest, header: JPEGHeader, orientation: Orientation) throws -> RenderPlan {
        let geometry = try RenderGeometry(
            storedSize: PixelSize(width: header.width, height: header.height),
            orientation: orientation, operations: request.operations)
        return try RenderPlanner.plan(header: header, geometry: geometry, encoding: request.encoding,
                                      huffman: request.huffman, limits: request.limits,
                                      displayLongestSide: request.displayOutputPath == nil ? nil : request.displayLongestSide)
    }

    static func openDecoder(_ path: String, maxScans: Int) throws -> JPEGDecoder {
        try wrap { try JPEGDecoder(path: path, maxScans: maxScans) }
    }
}

/// libjpeg errors become render errors; render errors pass through.
@inline(__always)
func wrap<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as JPEGError {
        throw RenderError.jpeg(error)
    }
}
