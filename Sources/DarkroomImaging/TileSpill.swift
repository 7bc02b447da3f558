/// A step's whole input in a spill of `tile`² tiles of 8-bit codes, for steps whose output
/// reads it out of order (a turn whose band would not fit the budget). Tile (column c, row r)
/// holds its pixels at ((r · columns + c) · tile² · 3).
final class TileSpill {
    let tile: Int
    let width: Int
    let height: Int
    private let storage: SpillStorage
    private let tileBytes: UnsafeMutableRawBufferPointer

    /// Bytes the spill holds for an input of `size`.
    static func bytes(_ size: PixelSize, tile: Int) -> Int {
        ((size.width + tile - 1) / tile) * ((size.height + tile - 1) / tile) * tile * tile * 3
    }

    /// Working bytes besides the spill: a band of a tile's rows, a tile packed, a tile read.
    static func workingBytes(width: Int, tile: Int) -> Int { tile * width * 3 + 2 * tile * tile * 3 }

    /// Fills the spill with every row of a step's input, from `pull`.
    init(
        filledFrom pull: UpstreamCodes, tile: Int, kind: SpillKind, directory: String, isCancelled: () -> Bool
    ) throws {
        (width, height, self.tile) = (pull.region.width, pull.region.height, tile)
        storage =
            kind == .memory
            ? MemorySpill(byteCount: Self.bytes(PixelSize(width: width, height: height), tile: tile))
            : try FileSpill(directory: directory)
        tileBytes = .allocate(byteCount: tile * tile * 3, alignment: 16)
        let columns = (width + tile - 1) / tile
        let band = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: tile * width * 3)
        defer { band.deallocate() }
        for tileRow in 0..<((height + tile - 1) / tile) {
            if isCancelled() { throw RenderError.cancelled }
            let rows = min(tile, height - tileRow * tile)
            for row in 0..<rows {
                (band.baseAddress! + row * width * 3).update(from: try pull.next(), count: width * 3)
            }
            for column in 0..<columns {
                let x = column * tile
                let count = min(tile, width - x)
                for row in 0..<rows {
                    (tileBytes.baseAddress! + row * tile * 3).copyMemory(
                        from: band.baseAddress! + row * width * 3 + x * 3, byteCount: count * 3)
                }
                try storage.write(
                    at: (tileRow * columns + column) * tile * tile * 3, from: UnsafeRawBufferPointer(tileBytes))
            }
        }
    }

    deinit { tileBytes.deallocate() }

    /// Each row of `rect` (input pixels, inside the input) as runs of codes: `body(codes, x, y,
    /// count)` for `count` pixels from (x, y), tile by tile.
    func read(
        _ rect: PixelRect, _ body: (_ codes: UnsafePointer<UInt8>, _ x: Int, _ y: Int, _ count: Int) -> Void
    ) throws {
        let columns = (width + tile - 1) / tile
        let codes = UnsafePointer(tileBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        for tileRow in (rect.y / tile)...((rect.maxY - 1) / tile) {
            for tileColumn in (rect.x / tile)...((rect.maxX - 1) / tile) {
                try storage.read(at: (tileRow * columns + tileColumn) * tile * tile * 3, into: tileBytes)
                let x0 = max(rect.x, tileColumn * tile)
                let x1 = min(rect.maxX - 1, tileColumn * tile + tile - 1)
                for y in max(rect.y, tileRow * tile)...min(rect.maxY - 1, tileRow * tile + tile - 1) {
                    body(codes + ((y - tileRow * tile) * tile + x0 - tileColumn * tile) * 3, x0, y, x1 - x0 + 1)
                }
            }
        }
    }
}
