import DarkroomTestSupport
import Foundation

/// The gain-map fixtures: Tests/Fixtures/gainmaps (libavif's test files) and the corpus's.
enum GainMapFiles {
    static func url(_ path: String) -> URL { Fixtures.root.appendingPathComponent(path) }

    static func bytes(_ path: String) throws -> [UInt8] { try Fixtures.bytes(of: url(path)) }

    /// Every gain-map JPEG with the kind its metadata come in.
    static let jpegs: [(path: String, kind: String)] = [
        ("gainmaps/seine_sdr_gainmap_srgb.jpg", "hdrgm"),
        ("gainmaps/paris_exif_xmp_gainmap_bigendian.jpg", "hdrgm"),
        ("gainmaps/paris_exif_xmp_gainmap_littleendian.jpg", "hdrgm"),
        ("gainmaps/apple_gainmap_new.jpg", "apple"),
        ("gainmaps/apple_gainmap_old.jpg", "apple"),
        ("corpus/libvips/ultra-hdr.jpg", "hdrgm"),
        ("corpus/pillow/frame_size.mpo", "apple"),
    ]
}

/// exiftool, the independent reader: nil when it is not installed.
enum ExifTool {
    static let path: String? = ["/usr/bin/exiftool", "/usr/local/bin/exiftool"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Runs exiftool with `arguments`, `input` on its standard input; its standard output.
    static func run(_ arguments: [String], input: [UInt8]? = nil) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path!)
        process.arguments = arguments
        let output = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardInput = input == nil ? nil : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input))
            try stdin.fileHandleForWriting.close()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return [UInt8](data)
    }

    /// The tags exiftool reads from a file (or, with `input`, from stdin), numbers as numbers.
    static func tags(_ arguments: [String], input: [UInt8]? = nil) throws -> [String: Any] {
        let json = try run(["-j", "-n"] + arguments, input: input)
        let array = try JSONSerialization.jsonObject(with: Data(json)) as? [[String: Any]]
        return array?.first ?? [:]
    }
}
