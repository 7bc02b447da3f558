import Foundation
import JPEGTurbo

/// Moves the output through its strips: oriented 8-bit rows → linear floats → color
/// operations → 8-bit sRGB → encoder. With two threads, the JPEG encoder runs on its own
/// thread while the next strip is decoded and colored; the pixels are the same either way.
struct StripPipeline {
    let plan: RenderPlan
    let decoder: any ScanlineDecoder
    /// The full-size output's; nil when only the renditions are written.
    let encoder: JPEGEncoder?
    let spillDirectory: String
    let threads: Int
    /// The renditions, fed every finished strip on the producing thread.
    var renditions: RenditionFan?
    var isCancelled: @Sendable () -> Bool = { false }

    func run() throws {
        let width = plan.geometry.outputSize.width
        let render = makeProducer()
        let produce: (UnsafeMutableRawBufferPointer) throws -> Int = { buffer in
            if isCancelled() { throw RenderError.cancelled }
            let rows = try render(buffer)
            if rows > 0, let renditions {
                try renditions.add(rows: rows, from: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            return rows
        }
        let stripBytes = width * plan.stripHeight * 3
        guard let encoder else {
            let rgb = UnsafeMutableRawBufferPointer.allocate(byteCount: stripBytes, alignment: 16)
            defer { rgb.deallocate() }
            while try produce(rgb) > 0 {}
            return
        }
        if threads < 2 {
            let rgb = UnsafeMutableRawBufferPointer.allocate(byteCount: stripBytes, alignment: 16)
            defer { rgb.deallocate() }
            while true {
                let rows = try produce(rgb)
                if rows == 0 { break }
                try wrap {
                    try encoder.writeRows(from: UnsafeRawBufferPointer(rgb), rowStride: width * 3, rowCount: rows)
                }
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
                        try encoderBox.value.writeRows(
                            from: UnsafeRawBufferPointer(handoff.buffers[strip.buffer]),
                            rowStride: width * 3, rowCount: strip.rows)
                    }
                } catch {
                    handoff.fail(error)
                    return
                }
                handoff.giveBack(strip.buffer)
            }
        }.start()
        do {
            while let index = handoff.takeFree() {
                let rows = try produce(handoff.buffers[index])
                if rows == 0 {
                    handoff.giveBack(index)
                    break
                }
                handoff.publish(.init(buffer: index, rows: rows))
            }
        } catch {
            handoff.fail(error)
        }
        handoff.finish()
        encoded.wait()
        if let failure = handoff.firstFailure { throw failure }
    }
}

extension StripPipeline {
    /// Fills a buffer with the next finished 8-bit output strip and returns its rows (0 at
    /// the end). Color-only renders color the decoded strips in place; renders with
    /// blurs or turns pull rows through the row chain (a lone turn's rows come out as codes).
    func makeProducer() -> (UnsafeMutableRawBufferPointer) throws -> Int {
        let source = OrientedRowSource(
            decoder: decoder, plan: plan, spillDirectory: spillDirectory, isCancelled: isCancelled)
        let output = plan.geometry.outputSize
        guard plan.geometry.hasNeighbourhoodOperations else {
            let color = StripColor(plan: plan)
            var firstRow = 0
            return { buffer in
                let rows = try wrap { try source.nextStrip(into: buffer) }
                color.apply(to: buffer, rows: rows, firstRow: firstRow)
                firstRow += rows
                return rows
            }
        }
        let chain = RowChain.build(
            plan: plan, source: source, spillDirectory: spillDirectory, isCancelled: isCancelled)
        if plan.resampling.first?.space == .codes {
            // The plan samples in codes only when the turn is the whole chain: its rows are the output's.
            guard let turn = chain as? any CodeRowSource else {
                preconditionFailure("codes are sampled by a lone turn")
            }
            var produced = 0
            return { buffer in
                let rows = min(plan.stripHeight, output.height - produced)
                let bytes = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
                for index in 0..<rows { try turn.nextCodes(into: bytes + index * output.width * 3) }
                produced += rows
                return rows
            }
        }
        let row = UnsafeMutableBufferPointer<Float>.allocate(capacity: output.width * 3)
        let rowKeeper = RowBuffer(row)
        var produced = 0
        return { buffer in
            let rows = min(plan.stripHeight, output.height - produced)
            let bytes = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            for index in 0..<rows {
                try chain.nextRow(into: rowKeeper.buffer.baseAddress!)
                SRGB.encode(
                    rowKeeper.buffer.baseAddress!, into: bytes + index * output.width * 3, count: output.width * 3)
            }
            produced += rows
            return rows
        }
    }
}

/// Frees a float row when the producer closure that uses it goes away.
final class RowBuffer {
    let buffer: UnsafeMutableBufferPointer<Float>
    init(_ buffer: UnsafeMutableBufferPointer<Float>) { self.buffer = buffer }
    deinit { buffer.deallocate() }
}

/// Moves a non-Sendable owner to the one other thread that uses it while this thread waits.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
