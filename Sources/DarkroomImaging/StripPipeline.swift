import Foundation
import JPEGTurbo

/// Moves the output through its strips: oriented 8-bit rows → linear floats → colour
/// operations → 8-bit sRGB → encoder. With two threads, the JPEG encoder runs on its own
/// thread while the next strip is decoded and coloured; the pixels are the same either way.
struct StripPipeline {
    let plan: RenderPlan
    let decoder: JPEGDecoder
    let encoder: JPEGEncoder
    let spillDirectory: String
    let threads: Int

    /// Rows per pass through the colour operations: about 48K floats (192 KB), which
    /// stays in a core's L2 cache.
    static func chunkHeight(width: Int, maxRows: Int) -> Int {
        min(maxRows, max(1, 16_384 / max(width, 1)))
    }

    func run() throws {
        let width = plan.geometry.outputSize.width
        let source = OrientedRowSource(decoder: decoder, plan: plan, spillDirectory: spillDirectory)
        let colour = StripColour(plan: plan)
        let stripBytes = width * plan.stripHeight * 3
        if threads < 2 {
            let rgb = UnsafeMutableRawBufferPointer.allocate(byteCount: stripBytes, alignment: 16)
            defer { rgb.deallocate() }
            var firstRow = 0
            while true {
                let rows = try wrap { try source.nextStrip(into: rgb) }
                if rows == 0 { break }
                colour.apply(to: rgb, rows: rows, firstRow: firstRow)
                try wrap { try encoder.writeRows(from: UnsafeRawBufferPointer(rgb), rowStride: width * 3, rowCount: rows) }
                firstRow += rows
            }
            return
        }
        let handoff = StripHandoff(count: 2, bytesEach: stripBytes)
        let encoded = DispatchSemaphore(value: 0)
        let encoderBox = UncheckedBox(encoder)
        Thread {
            defer { encoded.signal() }
            while let strip = handoff.takeReady() {
                do {
                    try wrap {
                        try encoderBox.value.writeRows(from: UnsafeRawBufferPointer(handoff.buffers[strip.buffer]),
                                                       rowStride: width * 3, rowCount: strip.rows)
                    }
                } catch {
                    handoff.fail(error)
                    return
                }
                handoff.giveBack(strip.buffer)
            }
        }.start()
        var firstRow = 0
        do {
            while let index = handoff.takeFree() {
                let buffer = handoff.buffers[index]
                let rows = try wrap { try source.nextStrip(into: buffer) }
                if rows == 0 { break }
                colour.apply(to: buffer, rows: rows, firstRow: firstRow)
                handoff.publish(.init(buffer: index, rows: rows))
                firstRow += rows
            }
        } catch {
            handoff.fail(error)
        }
        handoff.finish()
        encoded.wait()
        if let failure = handoff.firstFailure { throw failure }
    }
}

/// The colour operations of a plan, applied in place to 8-bit strips a few rows at a time
/// so the floats stay in cache.
struct StripColour {
    let steps: [PlacedOperation]
    let width: Int
    let chunkHeight: Int

    init(plan: RenderPlan) {
        steps = plan.geometry.steps
        width = plan.geometry.outputSize.width
        chunkHeight = StripPipeline.chunkHeight(width: width, maxRows: plan.stripHeight)
    }

    /// No colour operation: 8-bit values go straight through (the round trip through
    /// linear light would give back the same codes anyway).
    func apply(to strip: UnsafeMutableRawBufferPointer, rows: Int, firstRow: Int) {
        guard !steps.isEmpty else { return }
        let linear = UnsafeMutableBufferPointer<Float>.allocate(capacity: width * chunkHeight * 3)
        defer { linear.deallocate() }
        let bytes = strip.bindMemory(to: UInt8.self)
        SRGB.decodeTable.withUnsafeBufferPointer { decodeTable in
            SRGB.encodeTable.withUnsafeBufferPointer { encodeTable in
                var chunkStart = 0
                while chunkStart < rows {
                    let chunkRows = min(chunkHeight, rows - chunkStart)
                    let offset = chunkStart * width * 3
                    let samples = chunkRows * width * 3
                    SRGB.decode(bytes.baseAddress! + offset, into: linear.baseAddress!, count: samples, table: decodeTable.baseAddress!)
                    let chunk = LinearStrip(pixels: linear, width: width, rows: chunkRows, firstRow: firstRow + chunkStart)
                    for step in steps { ColorKernels.apply(step, to: chunk) }
                    SRGB.encode(linear.baseAddress!, into: bytes.baseAddress! + offset, count: samples, table: encodeTable.baseAddress!)
                    chunkStart += chunkRows
                }
            }
        }
    }
}

/// Moves a non-Sendable owner to the one other thread that uses it while this thread waits.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
