import JPEGTurbo

/// Moves the output through its strips: oriented 8-bit rows → linear floats →
/// colour operations → 8-bit sRGB → encoder. Buffers are allocated once per render.
struct StripPipeline {
    let plan: RenderPlan
    let decoder: JPEGDecoder
    let encoder: JPEGEncoder
    let spillDirectory: String

    func run() throws {
        let width = plan.geometry.outputSize.width
        let maxRows = plan.stripHeight
        let source = OrientedRowSource(decoder: decoder, plan: plan, spillDirectory: spillDirectory)
        let rgb = UnsafeMutableRawBufferPointer.allocate(byteCount: width * maxRows * 3, alignment: 16)
        defer { rgb.deallocate() }
        let steps = plan.geometry.steps
        let linear = UnsafeMutableBufferPointer<Float>.allocate(capacity: steps.isEmpty ? 0 : width * maxRows * 3)
        defer { linear.deallocate() }
        var firstRow = 0
        try SRGB.decodeTable.withUnsafeBufferPointer { decodeTable in
            try SRGB.encodeTable.withUnsafeBufferPointer { encodeTable in
                while true {
                    let rows = try wrap { try source.nextStrip(into: rgb) }
                    if rows == 0 { break }
                    let samples = width * rows * 3
                    let bytes = rgb.bindMemory(to: UInt8.self)
                    // No colour operation: 8-bit values go straight through (the round trip
                    // through linear light would give back the same codes anyway).
                    if !steps.isEmpty {
                        for index in 0..<samples { linear[index] = decodeTable[Int(bytes[index])] }
                        let strip = LinearStrip(pixels: linear, width: width, rows: rows, firstRow: firstRow)
                        for step in steps { ColorKernels.apply(step, to: strip) }
                        for index in 0..<samples { bytes[index] = SRGB.encode(linear[index], table: encodeTable) }
                    }
                    try wrap { try encoder.writeRows(from: UnsafeRawBufferPointer(rgb), rowStride: width * 3, rowCount: rows) }
                    firstRow += rows
                }
            }
        }
    }
}
