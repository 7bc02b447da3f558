import JPEGTurbo

/// Produces the read rectangle of the upright image (the output plus any blur halo), top
/// to bottom, as 8-bit RGB rows (`outputWidth * 3` bytes each, no padding).
///
/// Orientations 1 and 2 stream: each decoded row is an output row. The others first
/// decode the stored rectangle into a spill of tiles, then serve each output strip from
/// one tile column (quarter turns) or one tile row (flips).
final class OrientedRowSource {
    private let decoder: any ScanlineDecoder
    private let plan: RenderPlan
    private let region: PixelRect  // stored pixels needed
    private let outputWidth: Int
    private let outputHeight: Int
    private var nextOutputRow = 0
    private var decodeBuffer: UnsafeMutableRawBufferPointer
    private let storedRowBytes: Int
    private var spill: SpillStorage?
    private var band: UnsafeMutableRawBufferPointer?
    private let spillDirectory: String
    private let isCancelled: @Sendable () -> Bool

    init(
        decoder: any ScanlineDecoder, plan: RenderPlan, spillDirectory: String,
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) {
        self.isCancelled = isCancelled
        self.decoder = decoder
        self.plan = plan
        self.spillDirectory = spillDirectory
        region = plan.geometry.storedRect
        outputWidth = plan.geometry.readRect.width
        outputHeight = plan.geometry.readRect.height
        storedRowBytes = plan.geometry.storedSize.width * 3
        decodeBuffer = .allocate(byteCount: storedRowBytes * plan.decodeRows, alignment: 16)
    }

    deinit {
        decodeBuffer.deallocate()
        band?.deallocate()
    }

    var isFinished: Bool { nextOutputRow >= outputHeight }

    /// Fills `destination` with the next output strip and returns its row count
    /// (0 once every row was produced). With a spill, strips follow tile boundaries.
    func nextStrip(into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !isFinished else { return 0 }
        if plan.geometry.orientation.streamsRows {
            return try nextStreamedStrip(into: destination)
        }
        if spill == nil { try fillSpill() }
        return try nextSpilledStrip(into: destination)
    }

    // MARK: Streaming (orientations 1 and 2)

    private func nextStreamedStrip(into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        if nextOutputRow == 0, region.y > 0 { try decoder.skipRows(region.y) }
        let rows = min(plan.decodeRows, outputHeight - nextOutputRow)
        let mirrored = plan.geometry.orientation == .upMirrored
        // Whole upright rows: libjpeg writes straight into the strip, saving a copy of
        // every pixel (and the decode buffer is never touched).
        if !mirrored, outputWidth * 3 == storedRowBytes, destination.count >= rows * storedRowBytes {
            let got = try decoder.readRows(into: destination, rowStride: storedRowBytes, rowCount: rows)
            guard got == rows else { throw truncated() }
            nextOutputRow += rows
            return rows
        }
        let got = try decoder.readRows(into: decodeBuffer, rowStride: storedRowBytes, rowCount: rows)
        guard got == rows else { throw truncated() }
        for row in 0..<rows {
            let source = decodeBuffer.baseAddress! + row * storedRowBytes
            let target = destination.baseAddress! + row * outputWidth * 3
            if mirrored {
                copyPixels(from: source, startPixel: region.maxX - 1, step: -1, to: target, count: outputWidth)
            } else {
                target.copyMemory(from: source + region.x * 3, byteCount: outputWidth * 3)
            }
        }
        nextOutputRow += rows
        return rows
    }

    // MARK: Spill (orientations 3 to 8)

    /// Decodes the stored rectangle strip by strip, cutting each strip into tiles.
    /// Tile (column c, row r) holds its rows contiguously at `tileOffset(c, r)`.
    private func fillSpill() throws {
        guard let tile = plan.tile else { preconditionFailure("a spilled plan has tiles") }
        let storage: SpillStorage =
            plan.spill == .memory
            ? MemorySpill(byteCount: plan.spillBytes)
            : try FileSpill(directory: spillDirectory)
        if region.y > 0 { try decoder.skipRows(region.y) }
        let tileBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: tile.area * 3, alignment: 16)
        defer { tileBytes.deallocate() }
        var tileRow = 0
        var storedRow = 0
        while storedRow < region.height {
            // Filling the spill is the long phase of a rotation: stop here too when asked.
            if isCancelled() { throw RenderError.cancelled }
            let rows = min(tile.height, region.height - storedRow)
            let got = try decoder.readRows(into: decodeBuffer, rowStride: storedRowBytes, rowCount: rows)
            guard got == rows else { throw truncated() }
            var column = 0
            for x in stride(from: 0, to: region.width, by: tile.width) {
                let width = min(tile.width, region.width - x)
                for row in 0..<rows {
                    (tileBytes.baseAddress! + row * width * 3).copyMemory(
                        from: decodeBuffer.baseAddress! + row * storedRowBytes + (region.x + x) * 3,
                        byteCount: width * 3)
                }
                try storage.write(
                    at: tileOffset(column: column, row: tileRow, tile: tile),
                    from: UnsafeRawBufferPointer(rebasing: tileBytes[0..<(width * rows * 3)]))
                column += 1
            }
            storedRow += rows
            tileRow += 1
        }
        spill = storage
        let bandBytes =
            plan.geometry.orientation.swapsAxes
            ? tile.width * region.height * 3
            : region.width * tile.height * 3
        band = .allocate(byteCount: bandBytes, alignment: 16)
    }

    private func tileOffset(column: Int, row: Int, tile: PixelSize) -> Int {
        let rowsInTileRow = min(tile.height, region.height - row * tile.height)
        return row * tile.height * region.width * 3 + column * tile.width * rowsInTileRow * 3
    }

    /// The next output strip is one tile column (quarter turns) or tile row (flips),
    /// taken from the end the orientation starts at.
    private func nextSpilledStrip(into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let tile = plan.tile, let spill, let band else { preconditionFailure("spill not filled") }
        let orientation = plan.geometry.orientation
        let map = orientation.storedPixelMap(stored: region.size)
        // The stored coordinate (relative to the region) of this strip's first output row.
        let first = map.stored(x: 0, y: nextOutputRow)
        let bandOrigin: (x: Int, y: Int)
        let bandSize: PixelSize
        if orientation.swapsAxes {
            let column = first.x / tile.width
            let x = column * tile.width
            bandOrigin = (x, 0)
            bandSize = PixelSize(width: min(tile.width, region.width - x), height: region.height)
            for row in 0..<((region.height + tile.height - 1) / tile.height) {
                let y = row * tile.height
                let bytes = bandSize.width * min(tile.height, region.height - y) * 3
                try spill.read(
                    at: tileOffset(column: column, row: row, tile: tile),
                    into: UnsafeMutableRawBufferPointer(
                        rebasing: band[(y * bandSize.width * 3)..<(y * bandSize.width * 3 + bytes)]))
            }
        } else {
            let row = first.y / tile.height
            let y = row * tile.height
            bandOrigin = (0, y)
            bandSize = PixelSize(width: region.width, height: min(tile.height, region.height - y))
            try spill.read(
                at: tileOffset(column: 0, row: row, tile: tile),
                into: UnsafeMutableRawBufferPointer(rebasing: band[0..<(bandSize.area * 3)]))
        }
        // Output rows this band covers: those whose stored coordinate stays inside it.
        let stepAlongBand = orientation.swapsAxes ? map.yStep.dx : map.yStep.dy
        let bandStart = orientation.swapsAxes ? bandOrigin.x : bandOrigin.y
        let bandLength = orientation.swapsAxes ? bandSize.width : bandSize.height
        let startCoordinate = orientation.swapsAxes ? first.x : first.y
        let rows =
            stepAlongBand > 0
            ? bandStart + bandLength - startCoordinate
            : startCoordinate - bandStart + 1
        let xStepInBand = map.xStep.dy * bandSize.width + map.xStep.dx
        for row in 0..<rows {
            let start = map.stored(x: 0, y: nextOutputRow + row)
            let startPixel = (start.y - bandOrigin.y) * bandSize.width + (start.x - bandOrigin.x)
            copyPixels(
                from: band.baseAddress!, startPixel: startPixel, step: xStepInBand,
                to: destination.baseAddress! + row * outputWidth * 3, count: outputWidth)
        }
        nextOutputRow += rows
        return rows
    }

    /// Only a JPEG decoder can run out of rows (a HEIF delivers every row or throws).
    private func truncated() -> RenderError {
        .codec(
            CodecError(
                JPEGError(
                    code: .damaged,
                    message: "the image ended before row \(decoder.nextRow + 1) of \(decoder.outputHeight)",
                    object: decoder.objectName)))
    }
}

/// Copies `count` RGB pixels starting at pixel `startPixel` of `source`, `step` pixels apart.
@inline(__always)
private func copyPixels(
    from source: UnsafeRawPointer, startPixel: Int, step: Int, to target: UnsafeMutableRawPointer, count: Int
) {
    let from = source.assumingMemoryBound(to: UInt8.self)
    let to = target.assumingMemoryBound(to: UInt8.self)
    var index = startPixel * 3
    let stride = step * 3
    for pixel in 0..<count {
        to[pixel * 3] = from[index]
        to[pixel * 3 + 1] = from[index + 1]
        to[pixel * 3 + 2] = from[index + 2]
        index += stride
    }
}
