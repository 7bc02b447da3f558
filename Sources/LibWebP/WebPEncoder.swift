internal import CWebP

/// Writes 8-bit RGB pixels as a lossy WebP in memory, with its metadata chunks when given.
/// Every libwebp handle lives inside one call: the picture, the encoder's output, the mux and
/// the assembled file are each freed by the function that made them, on every path.
public enum WebPEncoder {
    /// WebP's limit per side (`WEBP_MAX_DIMENSION`): VP8 stores 14 bits of width and height.
    public static let maxDimension = Int(WEBP_MAX_DIMENSION)

    /// The WebP file for `rgb` (rows of `width` RGB pixels, top first, no padding). With no
    /// metadata it is the plain VP8 file; with some, an extended (VP8X) one carrying the chunks.
    /// Everything is checked before libwebp is called; `name` only labels errors.
    public static func encode(
        rgb: UnsafeBufferPointer<UInt8>, width: Int, height: Int, settings: WebPSettings, metadata: WebPMetadata,
        name: String
    ) throws(WebPError) -> [UInt8] {
        try check(rgbCount: rgb.count, width: width, height: height, settings: settings, name: name)
        if let problem = metadata.problem { throw WebPError(code: .invalidMetadata, message: problem, name: name) }

        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        try encodePicture(rgb: rgb, width: width, height: height, settings: settings, into: &writer, name: name)
        let image = UnsafeBufferPointer(start: writer.mem, count: writer.size)
        if metadata.isEmpty { return Array(image) }

        var assembled = WebPData()
        WebPDataInit(&assembled)
        defer { WebPDataClear(&assembled) }
        try assemble(image: image, metadata: metadata, into: &assembled, name: name)
        return Array(UnsafeBufferPointer(start: assembled.bytes, count: assembled.size))
    }

    /// The refusals that need no libwebp: each says which value is wrong and what would do.
    static func check(
        rgbCount: Int, width: Int, height: Int, settings: WebPSettings, name: String
    ) throws(WebPError) {
        let sides = 1...maxDimension
        guard sides.contains(width), sides.contains(height) else {
            throw WebPError(
                code: .invalidSize,
                message: "a \(width)×\(height) picture cannot be a WebP: each side must be 1 to \(maxDimension) pixels;"
                    + " scale it to fit first",
                name: name)
        }
        guard rgbCount == width * height * 3 else {
            throw WebPError(
                code: .invalidBuffer,
                message: "the pixel buffer holds \(rgbCount) bytes, but \(width)×\(height) RGB needs"
                    + " \(width * height * 3); pass 3 bytes per pixel, rows without padding",
                name: name)
        }
        guard WebPSettings.qualityRange.contains(settings.quality) else {
            throw WebPError(
                code: .invalidSettings,
                message: "quality \(settings.quality) is outside \(WebPSettings.qualityRange); 75–85 suits previews",
                name: name)
        }
        guard WebPSettings.methodRange.contains(settings.method) else {
            throw WebPError(
                code: .invalidSettings,
                message: "method \(settings.method) is outside \(WebPSettings.methodRange);"
                    + " use \(WebPSettings.defaultMethod) unless measured otherwise",
                name: name)
        }
    }

    /// Codes the picture into `writer` as a VP8 file.
    private static func encodePicture(
        rgb: UnsafeBufferPointer<UInt8>, width: Int, height: Int, settings: WebPSettings,
        into writer: inout WebPMemoryWriter, name: String
    ) throws(WebPError) {
        var config = WebPConfig()
        // Fails only when the library at run time is not the one the headers describe.
        guard WebPConfigInit(&config) != 0 else {
            throw WebPError(
                code: .encodeFailed,
                message: "libwebp refused its configuration: its headers and library differ;"
                    + " reinstall libwebp-dev", name: name)
        }
        config.quality = Float(settings.quality)
        config.method = Int32(settings.method)
        // One thread per encode: the worker runs encodes side by side.
        config.thread_level = 0
        // Code the picture twice rather than keep its tokens: 1.3–2× the time for the same
        // bytes, but at most 11 bytes a pixel instead of 33 (noise at quality 100), which
        // `workingBytes` must reserve for every encode.
        config.low_memory = 1
        guard WebPValidateConfig(&config) != 0 else {
            throw WebPError(
                code: .encodeFailed, message: "libwebp refused quality \(settings.quality), method \(settings.method)",
                name: name)
        }

        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw WebPError(
                code: .encodeFailed,
                message: "libwebp refused its picture: its headers and library differ;"
                    + " reinstall libwebp-dev", name: name)
        }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(width)
        picture.height = Int32(height)
        // Straight to YUV 4:2:0, with no ARGB copy. Sharp YUV would need one and measured not
        // worth it: 0.1–0.65 dB at equal size for 30–75 % more time and 3.5× the memory.
        picture.use_argb = 0
        guard WebPPictureImportRGB(&picture, rgb.baseAddress, Int32(width * 3)) != 0 else {
            throw WebPError(encoding: picture.error_code, name: name)
        }
        let encoded = withUnsafeMutablePointer(to: &writer) { writerPointer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            defer { picture.custom_ptr = nil }
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0 else { throw WebPError(encoding: picture.error_code, name: name) }
    }

    /// The extended file: `image` (a VP8 file) and the metadata's chunks, into `assembled`. The
    /// mux refers to `image` (it outlives the mux), copies the chunks, and sets the VP8X flags.
    private static func assemble(
        image: UnsafeBufferPointer<UInt8>, metadata: WebPMetadata, into assembled: inout WebPData, name: String
    ) throws(WebPError) {
        guard let mux = WebPMuxNew() else {
            throw WebPError(
                code: .outOfMemory, message: "libwebp could not allocate its mux; retry with more memory free",
                name: name)
        }
        defer { WebPMuxDelete(mux) }
        var imageData = WebPData(bytes: image.baseAddress, size: image.count)
        try check(WebPMuxSetImage(mux, &imageData, 0), step: "the encoded image", name: name)
        let chunks: [(fourCC: String, step: String, bytes: ArraySlice<UInt8>?)] = [
            ("ICCP", "the ICC profile", metadata.iccProfile?[...]), ("EXIF", "the EXIF block", metadata.exifTIFF),
            ("XMP ", "the XMP packet", metadata.xmp?[...]),
        ]
        for (fourCC, step, bytes) in chunks {
            guard let bytes else { continue }
            let status = bytes.withUnsafeBufferPointer { buffer in
                var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
                // copy_data 1: the mux keeps its own copy, so no pointer outlives this closure.
                return WebPMuxSetChunk(mux, fourCC, &data, 1)
            }
            try check(status, step: step, name: name)
        }
        try check(WebPMuxAssemble(mux, &assembled), step: "assembling the file", name: name)
    }

    private static func check(_ status: WebPMuxError, step: String, name: String) throws(WebPError) {
        if status != WEBP_MUX_OK { throw WebPError(mux: status, step: step, name: name) }
    }
}
