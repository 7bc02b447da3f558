import Foundation

/// A test-only JPEG marker scanner standing in for the real decoder: SOI, then
/// `FF xx` + length segments until SOS or EOI.
public enum JPEGSegments {
    /// The payload of every segment before the image data, with its marker byte.
    public static func segments(of jpeg: [UInt8]) -> [(marker: UInt8, payload: [UInt8])] {
        guard jpeg.count >= 2, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return [] }
        var segments: [(marker: UInt8, payload: [UInt8])] = []
        var index = 2
        while index + 1 < jpeg.count {
            guard jpeg[index] == 0xFF else { break }
            let marker = jpeg[index + 1]
            index += 2
            switch marker {
            case 0xFF:
                index -= 1
                continue  // fill byte before a marker
            case 0xD0...0xD7, 0x01: continue  // standalone markers carry no length
            case 0xDA, 0xD9: return segments  // start of scan / end of image
            default: break
            }
            guard index + 2 <= jpeg.count else { break }
            let length = Int(jpeg[index]) << 8 | Int(jpeg[index + 1])
            guard length >= 2, index + length <= jpeg.count else { break }
            segments.append((marker, Array(jpeg[index + 2..<index + length])))
            index += length
        }
        return segments
    }

    /// What the decoder hands over: the first APP1 payload that starts with `Exif\0\0`.
    public static func exifPayload(of jpeg: [UInt8]) -> [UInt8]? {
        segments(of: jpeg).first { $0.marker == 0xE1 && $0.payload.starts(with: exifHeader) }?.payload
    }

    public static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]
}

/// The EXIF APP1 payload of a bundled sample, e.g. `exifPayload("gps/DSCN0010.jpg")`.
public func exifPayload(_ fixture: String) throws -> [UInt8] {
    let jpeg = try Fixtures.bytes(of: Fixtures.exifSample(fixture))
    guard let payload = JPEGSegments.exifPayload(of: jpeg) else {
        throw TestDatabase.SetupError(description: "\(fixture) has no EXIF APP1 segment")
    }
    return payload
}

/// Every `.jpg` under a fixture folder, as paths relative to `exif-samples`.
public func fixtureFiles(in folder: String) throws -> [String] {
    let directory = Fixtures.exifSample(folder)
    return try FileManager.default.contentsOfDirectory(atPath: directory.path)
        .filter { $0.lowercased().hasSuffix(".jpg") }
        .sorted()
        .map { "\(folder)/\($0)" }
}
