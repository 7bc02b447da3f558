import ByteStreams
import JPEGTurbo
import LittleCMS

/// Where one rendition's scaled rows go, top to bottom.
protocol RenditionWriter: AnyObject {
    /// One row of the rendition's `width * 3` bytes.
    func write(row: UnsafePointer<UInt8>) throws
    /// After the last row: the encoder's end (a WebP or AVIF is encoded here, whole).
    func finish() throws
}

/// A JPEG rendition: rows stream into libjpeg as they come.
final class JPEGRenditionWriter: RenditionWriter {
    private let encoder: JPEGEncoder
    private let width: Int

    init(encoder: JPEGEncoder, width: Int) {
        self.encoder = encoder
        self.width = width
    }

    func write(row: UnsafePointer<UInt8>) throws {
        try wrap {
            try encoder.writeRows(
                from: UnsafeRawBufferPointer(start: row, count: width * 3), rowStride: width * 3, rowCount: 1)
        }
    }

    func finish() throws { try wrap { try encoder.finish() } }
}

/// A WebP or AVIF rendition: their encoders take the picture whole, so its rows are held
/// (a rendition is small; the plan prices the picture and the encoder) and encoded at the end.
final class HeldPictureWriter: RenditionWriter {
    private let pixels: UnsafeMutableBufferPointer<UInt8>
    private let size: PixelSize
    private var rows = 0
    private let sink: any ByteSink
    /// The file's format, which names a failure to write it.
    private let format: CodecError.Format
    private let encode: (UnsafeBufferPointer<UInt8>, PixelSize) throws -> [UInt8]

    init(
        size: PixelSize, sink: any ByteSink, format: CodecError.Format,
        encode: @escaping (UnsafeBufferPointer<UInt8>, PixelSize) throws -> [UInt8]
    ) {
        pixels = .allocate(capacity: size.area * 3)
        self.size = size
        self.format = format
        self.sink = sink
        self.encode = encode
    }

    deinit { pixels.deallocate() }

    func write(row: UnsafePointer<UInt8>) throws {
        precondition(rows < size.height, "more rows than the rendition's \(size)")
        (pixels.baseAddress! + rows * size.width * 3).update(from: row, count: size.width * 3)
        rows += 1
    }

    func finish() throws {
        precondition(rows == size.height, "the rendition got \(rows) of its \(size.height) rows")
        let bytes = try encode(UnsafeBufferPointer(pixels), size)
        do {
            try bytes.withUnsafeBytes { raw in try sink.write(raw) }
        } catch let error as StreamError {
            throw RenderError.codec(CodecError(writing: error, format: format, object: sink.objectName))
        }
    }
}

/// Converts each row from the render's colour profile to sRGB (`--color srgb`) before its writer.
final class SRGBConvertingWriter: RenditionWriter {
    private let transform: RGBTransform
    private let converted: UnsafeMutableBufferPointer<UInt8>
    private let width: Int
    private let next: any RenditionWriter

    init(transform: RGBTransform, width: Int, next: any RenditionWriter) {
        self.transform = transform
        converted = .allocate(capacity: width * 3)
        self.width = width
        self.next = next
    }

    deinit { converted.deallocate() }

    func write(row: UnsafePointer<UInt8>) throws {
        transform.convert(
            UnsafeRawBufferPointer(start: row, count: width * 3), into: UnsafeMutableRawBufferPointer(converted),
            pixels: width)
        try next.write(row: UnsafePointer(converted.baseAddress!))
    }

    func finish() throws { try next.finish() }
}

/// The renditions fed from the render's strips on the producing thread: each 8-bit output row
/// is decoded to linear light once, and each rendition's downscaler averages it to its size.
final class RenditionFan {
    private let downscalers: [StreamingDownscaler]
    private let writers: [any RenditionWriter]
    private let linearRow: UnsafeMutableBufferPointer<Float>
    private let width: Int

    /// `writers[i]` takes the rows scaled to `sizes[i]` from rows `output.width` wide.
    init(output: PixelSize, sizes: [PixelSize], writers: [any RenditionWriter]) {
        precondition(sizes.count == writers.count)
        width = output.width
        linearRow = .allocate(capacity: output.width * 3)
        self.writers = writers
        downscalers = zip(sizes, writers).map { size, writer in
            StreamingDownscaler(resampler: AreaResampler(source: output, target: size)) { row in
                try writer.write(row: row)
            }
        }
    }

    deinit { linearRow.deallocate() }

    func add(rows: Int, from bytes: UnsafePointer<UInt8>) throws {
        for row in 0..<rows {
            SRGB.decode(bytes + row * width * 3, into: linearRow.baseAddress!, count: width * 3)
            for downscaler in downscalers { try downscaler.add(linearRow: UnsafePointer(linearRow.baseAddress!)) }
        }
    }

    /// Finishes every writer, in order.
    func finish() throws {
        for writer in writers { try writer.finish() }
    }
}
