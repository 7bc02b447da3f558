import Foundation

/// Pictures read and scaled by tools darkroom did not write (libvips' `vips`, libheif's and
/// libwebp's tools), through binary PPM files: the independent side of a comparison.
public enum ReferenceImages {
    /// `tool arguments…`; its standard output and error together, and its exit status.
    public static func run(_ tool: String, _ arguments: [String]) throws -> (output: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: output, as: UTF8.self), process.terminationStatus)
    }

    /// The picture libvips decodes from `path` (JPEG, WebP or AVIF), as 8-bit RGB.
    public static func decode(_ path: String) throws -> DecodedImage {
        let ppm = NSTemporaryDirectory() + "darkroom-reference-\(UUID().uuidString).ppm"
        defer { try? FileManager.default.removeItem(atPath: ppm) }
        let run = try run("vips", ["copy", path, ppm])
        guard run.status == 0 else { throw ReferenceError("vips copy \(path) failed: \(run.output)") }
        return try DecodedImage(ppm: Array(try Data(contentsOf: URL(fileURLWithPath: ppm))))
    }

    /// `path` scaled by libvips to exactly `width` × `height` (`vips thumbnail`, which averages
    /// in the picture's own coding), converted to `exportProfile` ("srgb") when given. (Its
    /// `--linear` would also convert a Display P3 picture to sRGB on the way.)
    public static func scaled(_ path: String, width: Int, height: Int, exportProfile: String? = nil) throws
        -> DecodedImage
    {
        let ppm = NSTemporaryDirectory() + "darkroom-reference-\(UUID().uuidString).ppm"
        defer { try? FileManager.default.removeItem(atPath: ppm) }
        let run = try run(
            "vips",
            ["thumbnail", path, ppm, "\(width)", "--height", "\(height)", "--size", "force"]
                + (exportProfile.map { ["--export-profile", $0] } ?? []))
        guard run.status == 0 else { throw ReferenceError("vips thumbnail \(path) failed: \(run.output)") }
        return try DecodedImage(ppm: Array(try Data(contentsOf: URL(fileURLWithPath: ppm))))
    }
}

public struct ReferenceError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension DecodedImage {
    /// A binary PPM (P6, maxval 255; `#` comments allowed in the header, as libvips writes one),
    /// or a binary PGM (P5, libvips' grey), its value in each channel.
    public init(ppm bytes: [UInt8]) throws {
        let grey = bytes.starts(with: Array("P5".utf8))
        guard grey || bytes.starts(with: Array("P6".utf8)) else { throw ReferenceError("not a binary PPM or PGM") }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var fields: [Int] = []
        var index = 2
        while fields.count < 3 {
            while index < bytes.count, bytes[index] == 0x23 || isSpace(bytes[index]) {
                if bytes[index] == 0x23 { while index < bytes.count, bytes[index] != 0x0A { index += 1 } }
                index += 1
            }
            var value = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]), value < 1 << 24 {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            fields.append(value)
        }
        index += 1
        guard fields[2] == 255, bytes.count - index == fields[0] * fields[1] * (grey ? 1 : 3) else {
            throw ReferenceError("a PPM of \(fields) with \(bytes.count - index) bytes of pixels is not 8-bit")
        }
        let samples = bytes[index...]
        self.init(
            width: fields[0], height: fields[1], pixels: grey ? samples.flatMap { [$0, $0, $0] } : Array(samples))
    }
}
