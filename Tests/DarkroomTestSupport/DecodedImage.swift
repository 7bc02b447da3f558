import ByteStreams
import Foundation
import JPEGTurbo

/// Test-only helpers: whole small images in memory, which the renderer itself never does.
public struct DecodedImage: Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public init(path: String) throws {
        try self.init(source: FileSource(path: path))
    }

    /// A JPEG in memory, e.g. what a `MemoryUpload` committed.
    public init(jpeg: [UInt8]) throws {
        try self.init(source: ChunkedSource(jpeg, maxChunk: 1 << 16))
    }

    init(source: any ByteSource) throws {
        let decoder = try JPEGDecoder(source: source)
        let size = try decoder.start()
        width = size.width
        height = size.height
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let rows = try pixels.withUnsafeMutableBytes { buffer in
            try decoder.readRows(into: buffer, rowStride: size.width * 3, rowCount: size.height)
        }
        precondition(rows == height)
        try decoder.finish()
        self.pixels = pixels
    }

    public func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let base = (y * width + x) * 3
        return Array(pixels[base..<(base + 3)])
    }

    /// Mean absolute difference per sample.
    public func meanDifference(to other: DecodedImage) -> Double {
        precondition(width == other.width && height == other.height)
        var total = 0
        for index in pixels.indices { total += abs(Int(pixels[index]) - Int(other.pixels[index])) }
        return Double(total) / Double(pixels.count)
    }

    /// Mean absolute difference per sample after removing each channel's mean, so two
    /// encodes of one picture at different brightness still compare by their content.
    public func contentDifference(to other: DecodedImage) -> Double {
        precondition(width == other.width && height == other.height)
        let mine = channelMeans()
        let theirs = other.channelMeans()
        var total = 0.0
        for index in pixels.indices {
            let channel = index % 3
            total += abs((Double(pixels[index]) - mine[channel]) - (Double(other.pixels[index]) - theirs[channel]))
        }
        return total / Double(pixels.count)
    }

    public func channelMeans() -> [Double] {
        var sums = [0.0, 0.0, 0.0]
        for index in pixels.indices { sums[index % 3] += Double(pixels[index]) }
        return sums.map { $0 / Double(width * height) }
    }

    /// The image mirrored left to right.
    public func mirrored() -> DecodedImage {
        var copy = self
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 { copy.pixels[(y * width + x) * 3 + c] = pixels[(y * width + width - 1 - x) * 3 + c] }
            }
        }
        return copy
    }

    /// Writes the image as a JPEG (test inputs of exactly known content).
    public func write(to path: String, quality: Int = 100) throws {
        try write(to: path, encoding: JPEGEncoding(quality: quality, fullChroma: true))
    }

    public func write(to path: String, encoding: JPEGEncoding) throws {
        let file = try FileUpload(finalPath: path)
        let encoder = try JPEGEncoder(sink: file)
        try encoder.start(width: width, height: height, encoding: encoding)
        try pixels.withUnsafeBytes { buffer in
            try encoder.writeRows(from: buffer, rowStride: width * 3, rowCount: height)
        }
        try encoder.finish()
        try file.commit()
    }
}

extension DecodedImage {
    /// PSNR over all samples against an image of the same size, in dB.
    public func psnr(against other: DecodedImage) -> Double {
        var total = 0.0
        for index in pixels.indices {
            let difference = Double(pixels[index]) - Double(other.pixels[index])
            total += difference * difference
        }
        return 10 * log10(255 * 255 / (total / Double(pixels.count)))
    }
}
