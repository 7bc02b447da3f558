import ByteStreams
import GainMaps

/// The image's JPEG, written to an unlinked scratch file while it is encoded: the MPF index at
/// its head names its length, known only once it is finished, and a full-size JPEG is too large
/// to hold in the budget.
final class ScratchSink: ByteSink {
    let objectName: String
    private let spill: FileSpill
    private(set) var length = 0

    init(directory: String, name: String) throws {
        spill = try FileSpill(directory: directory)
        objectName = name
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(StreamError) {
        do {
            try spill.write(at: length, from: bytes)
        } catch {
            throw StreamError(code: .io, object: spill.directory, message: "scratch file for \(objectName): \(error)")
        }
        length += bytes.count
    }

    func read(at offset: Int, into bytes: UnsafeMutableRawBufferPointer) throws {
        try spill.read(at: offset, into: bytes)
    }
}

enum GainMapJoin {
    /// The buffer the image's bytes are copied through.
    static let chunkBytes = 64 << 10

    /// Writes the image in `primary` to `sink` with `map` joined to it (`GainMapJPEGWriter`'s
    /// layout: MPF, `hdrgm` XMP and ISO 21496-1), or alone when `map` is nil or cannot be joined
    /// (then a warning says why).
    static func write(
        _ primary: ScratchSink, map: [UInt8]?, metadata: GainMapMetadata, to sink: any ByteSink,
        warnings: inout [RenderWarning]
    ) throws {
        var insertAt = 0
        var parts: (inserted: [UInt8], secondary: [UInt8])?
        if let map {
            do {
                insertAt = try insertionOffset(primary)
                parts = try GainMapJPEGWriter.layout(
                    insertAt: insertAt, primaryLength: primary.length, gainMap: map, metadata: metadata)
            } catch let error as GainMapError {
                let warning = RenderWarning.gainMapDropped(reason: "it could not be joined to the render: \(error)")
                if !warnings.contains(warning) { warnings.append(warning) }
            }
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkBytes, alignment: 16)
        defer { buffer.deallocate() }
        func copy(_ range: Range<Int>) throws {
            var offset = range.lowerBound
            while offset < range.upperBound {
                let count = min(chunkBytes, range.upperBound - offset)
                let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
                try primary.read(at: offset, into: chunk)
                try put(UnsafeRawBufferPointer(chunk), to: sink)
                offset += count
            }
        }
        guard let parts else { return try copy(0..<primary.length) }
        try copy(0..<insertAt)
        try parts.inserted.withUnsafeBytes { try put($0, to: sink) }
        try copy(insertAt..<primary.length)
        try parts.secondary.withUnsafeBytes { try put($0, to: sink) }
    }

    private static func put(_ bytes: UnsafeRawBufferPointer, to sink: any ByteSink) throws {
        do {
            try sink.write(bytes)
        } catch {
            throw RenderError.output(error)
        }
    }

    /// `GainMapJPEGWriter.insertionOffset`, read from the scratch file a header at a time.
    static func insertionOffset(_ primary: ScratchSink) throws -> Int {
        try GainMapJPEGWriter.insertionOffset { offset in
            guard offset + 4 <= primary.length else { return nil }
            var header = [UInt8](repeating: 0, count: 4)
            try header.withUnsafeMutableBytes { try primary.read(at: offset, into: $0) }
            return header
        }
    }
}
