import DarkroomTestSupport
import Foundation
import Testing

/// libwebp's own command-line tools and exiftool: readers darkroom did not write.
enum WebPTools {
    static func path(_ tool: String) throws -> String {
        let path = "/usr/bin/\(tool)"
        try #require(
            FileManager.default.isExecutableFile(atPath: path), "\(tool) is missing (make tool-deps installs it)")
        return path
    }

    /// Runs a tool; its standard output and error together, and its exit status.
    static func run(_ tool: String, _ arguments: [String]) throws -> (output: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try path(tool))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), process.terminationStatus)
    }

    /// `bytes` in a fresh temporary file, removed after `body`.
    static func withFile<R>(_ bytes: [UInt8], suffix: String, _ body: (String) throws -> R) throws -> R {
        let path = NSTemporaryDirectory() + "darkroom-webp-\(UUID().uuidString)\(suffix)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    /// The picture dwebp decodes from `webp`, through a binary PPM.
    static func decode(_ webp: [UInt8]) throws -> DecodedImage {
        try withFile(webp, suffix: ".webp") { input in
            let output = input + ".ppm"
            defer { try? FileManager.default.removeItem(atPath: output) }
            let run = try run("dwebp", [input, "-ppm", "-o", output])
            try #require(run.status == 0, "dwebp failed: \(run.output)")
            return try ppm(Fixtures.bytes(of: URL(fileURLWithPath: output)))
        }
    }

    /// A P6 PPM with maxval 255: "P6", width, height, maxval, one whitespace byte, then RGB.
    static func ppm(_ bytes: [UInt8]) throws -> DecodedImage {
        var fields: [Int] = []
        var index = 2
        try #require(bytes.starts(with: Array("P6".utf8)))
        while fields.count < 3 {
            while index < bytes.count, bytes[index] == 0x23 || isSpace(bytes[index]) {
                if bytes[index] == 0x23 { while index < bytes.count, bytes[index] != 0x0A { index += 1 } }
                index += 1
            }
            var value = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            fields.append(value)
        }
        index += 1
        try #require(fields[2] == 255 && bytes.count - index == fields[0] * fields[1] * 3)
        return DecodedImage(width: fields[0], height: fields[1], pixels: Array(bytes[index...]))
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    /// The chunks webpinfo lists, by FourCC ("VP8 ", "VP8X", "ICCP", "EXIF", "XMP "), after it
    /// found no error in the file.
    static func chunks(_ webp: [UInt8]) throws -> [String] {
        let run = try withFile(webp, suffix: ".webp") { try WebPTools.run("webpinfo", [$0]) }
        #expect(run.status == 0 && run.output.contains("No error detected."), "webpinfo: \(run.output)")
        return run.output.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("Chunk ") else { return nil }
            let fourCC = line.dropFirst(6).prefix(4)
            return String(fourCC)
        }
    }
}

/// The metadata of a JPEG fixture, as a decoder hands it over.
enum JPEGMetadata {
    /// The ICC profile's APP2 chunks ("ICC_PROFILE\0", sequence, count, data), joined in order.
    static func iccProfile(of jpeg: [UInt8]) -> [UInt8]? {
        let header = Array("ICC_PROFILE".utf8) + [0]
        let chunks = JPEGSegments.segments(of: jpeg)
            .filter { $0.marker == 0xE2 && $0.payload.starts(with: header) && $0.payload.count > header.count + 2 }
            .sorted { $0.payload[header.count] < $1.payload[header.count] }
        return chunks.isEmpty ? nil : chunks.flatMap { $0.payload.dropFirst(header.count + 2) }
    }

    /// The XMP packet of the APP1 segment named by Adobe's namespace.
    static func xmp(of jpeg: [UInt8]) -> [UInt8]? {
        let header = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
        return JPEGSegments.segments(of: jpeg).first { $0.marker == 0xE1 && $0.payload.starts(with: header) }
            .map { Array($0.payload.dropFirst(header.count)) }
    }
}
