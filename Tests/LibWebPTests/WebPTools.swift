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
        _ = try path(tool)
        return try ReferenceImages.run(tool, arguments)
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
            return try DecodedImage(ppm: Fixtures.bytes(of: URL(fileURLWithPath: output)))
        }
    }

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
