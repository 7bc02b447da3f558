import DarkroomImaging
import FuzzImages
import FuzzSupport
import JPEGTurbo

/// A worker's path through a photo's bytes: the header (markers, EXIF, ICC) through the setjmp
/// boundary, the render planner's admission (pixel limit, the progressive coefficient buffer
/// against a 64 MiB budget), then every row through the scanline API (CMYK rows for CMYK
/// and YCCK files) and the trailer.
/// Inputs of odd length skip their first half of rows, as a crop does.
/// Properties: refusals are `JPEGError`s that blame the data (never misuse or I/O: the source
/// cannot fail) at an offset inside the input, or the planner's `RenderError`s.
///
/// The pixel limit is 8 MP here, not the worker's 268 MP: an arithmetic-coded JPEG describes an
/// image of any size in a few hundred bytes (after a marker the decoder feeds zeros, as the
/// standard says), and decoding the largest image takes as long as the largest real photo, far
/// more than the 2 s an input gets under ASan. What grows with the image is its time, which the
/// pixel limit bounds; the code path is the same at every size.
let limits = RenderLimits(memoryBudget: 64 << 20, maxPixels: 8 << 20)
let request = RenderRequest(operations: [], limits: limits, spillDirectory: "/nonexistent")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        do {
            _ = try Renderer.plan(request, input: MemorySource(bytes)) { _ in .up }
            let decoder = try JPEGDecoder(source: MemorySource(bytes), maxScans: limits.maxScans)
            check(decoder.header)
            // CMYK and YCCK files decode to CMYK rows (DarkroomImaging converts them).
            let output = JPEGDecoder.output(for: decoder.header.colorSpace) ?? .rgb
            let (width, height) = try decoder.start(output: output)
            require(
                width == decoder.header.width && height == decoder.header.height,
                "output \(width)×\(height) is not the header's size")
            let rows = 16
            let rowBytes = width * output.bytesPerPixel
            var strip = [UInt8](repeating: 0, count: rowBytes * rows)
            if bytes.count % 2 == 1 { try decoder.skipRows(height / 2) }
            while true {
                let read = try strip.withUnsafeMutableBytes {
                    try decoder.readRows(into: $0, rowStride: rowBytes, rowCount: rows)
                }
                if read == 0 { break }
                require(read <= rows, "readRows returned \(read) rows for a buffer of \(rows)")
            }
            require(decoder.nextRow == height, "decoding stopped at row \(decoder.nextRow) of \(height)")
            try decoder.finish()
        } catch {
            checkImageRefusal(error, inputSize: bytes.count)
        }
    }
}

func check(_ header: JPEGHeader) {
    require(header.width > 0 && header.height > 0, "header size \(header.width)×\(header.height)")
    if let exif = header.exifPayload {
        require(
            exif.starts(with: Array("Exif".utf8) + [0, 0]) && exif.count <= 65533, "EXIF payload of \(exif.count) bytes"
        )
    }
}
