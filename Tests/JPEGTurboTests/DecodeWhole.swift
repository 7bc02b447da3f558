import ByteStreams
import JPEGTurbo

/// Decodes every row of `source`, a few at a time as a render reads them, and finishes the
/// decoder (so how the input ended is judged). Returns the pixels and the finished decoder.
func decodeWhole(_ source: any ByteSource) throws -> (pixels: [UInt8], decoder: JPEGDecoder) {
    let decoder = try JPEGDecoder(source: source)
    let size = try decoder.start()
    var pixels = [UInt8](repeating: 0, count: size.width * size.height * 3)
    var row = 0
    try pixels.withUnsafeMutableBytes { buffer in
        while row < size.height {
            let strip = UnsafeMutableRawBufferPointer(rebasing: buffer[(row * size.width * 3)...])
            row += try decoder.readRows(into: strip, rowStride: size.width * 3, rowCount: 16)
        }
    }
    try decoder.finish()
    return (pixels, decoder)
}
