import DarkroomImaging
import FuzzImages
import FuzzSupport
import LibHeif

/// A worker's path through a HEIF or AVIF: the file read whole and its header (boxes, Exif
/// item, colour, a `tmap` item's gain map) through libheif, the render planner's admission (64 MiB
/// budget, 8 MP as in fuzz-jpeg), then the decode (a grid's tiles a row at a time, else the
/// whole image) and every coded row. Odd-length inputs skip half the rows, as a crop does.
/// Properties: refusals are `HEIFError`s that blame the data, or the planner's; a `tmap`'s map
/// decodes to at most twice the picture per side, its samples filling it, or is refused so; an
/// accepted image hands out exactly its header's coded rows.
let limits = RenderLimits(memoryBudget: 64 << 20, maxPixels: 8 << 20)
let request = RenderRequest(operations: [], limits: limits, spillDirectory: "/nonexistent")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        do {
            _ = try Renderer.plan(request, input: MemorySource(bytes)) { _ in .up }
            let decoder = try HEIFDecoder(
                source: MemorySource(bytes), limits: HEIFLimits(maxFileBytes: limits.memoryBudget))
            let (width, height) = (decoder.header.codedWidth, decoder.header.codedHeight)
            if decoder.header.toneMap != nil {
                do {
                    let map = try decoder.decodeToneMapGainMap()
                    let (pictureWidth, pictureHeight) = (decoder.header.width, decoder.header.height)
                    require(
                        map.width <= 2 * pictureWidth && map.height <= 2 * pictureHeight,
                        "a \(map.width)×\(map.height) gain map for a \(pictureWidth)×\(pictureHeight) picture")
                    require(
                        map.samples.count == map.width * map.height * map.channels, "the map's samples do not fill it")
                } catch {
                    checkImageRefusal(error, inputSize: bytes.count)
                }
            }
            try decoder.start()
            var strip = [UInt8](repeating: 0, count: width * 3 * 16)
            if bytes.count % 2 == 1 { try decoder.skipRows(height / 2) }
            while try strip.withUnsafeMutableBytes({
                try decoder.readRows(into: $0, rowStride: width * 3, rowCount: 16)
            }) > 0 {}
            require(decoder.nextRow == height, "decoding stopped at row \(decoder.nextRow) of \(height)")
            try decoder.finish()
        } catch {
            checkImageRefusal(error, inputSize: bytes.count)
        }
    }
}
