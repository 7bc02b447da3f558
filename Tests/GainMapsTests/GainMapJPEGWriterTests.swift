import DarkroomTestSupport
import Foundation
import GainMaps
import Testing

/// A gain-map JPEG joined from two plain JPEGs (Pillow's hopper in colour and grey), read back
/// by darkroom's parsers and by exiftool: the MPF index, the gain map's bytes, its hdrgm XMP.
@Suite struct GainMapJPEGWriterTests {
    static let metadata = GainMapMetadata(
        gainMapMin: SIMD3(0, -0.25, 0), gainMapMax: SIMD3(2.5, 2.25, 2), gamma: SIMD3(repeating: 1.5),
        baseOffset: SIMD3(repeating: 1.0 / 64), alternateOffset: SIMD3(repeating: 1.0 / 32), baseHeadroom: 0,
        alternateHeadroom: 2.5)

    static func joined() throws -> (file: [UInt8], gainMap: [UInt8]) {
        let primary = try GainMapFiles.bytes("corpus/pillow/hopper.jpg")
        let gainMap = try GainMapFiles.bytes("corpus/pillow/hopper_gray.jpg")
        return (try GainMapJPEGWriter.join(primary: primary, gainMap: gainMap, metadata: metadata), gainMap)
    }

    @Test func readsBackThroughDarkroom() throws {
        let (file, gainMap) = try Self.joined()
        let found = try #require(try GainMapJPEG.locate(in: file))
        // ISO 21496-1 is preferred where both are present; it keeps 32-bit fractions.
        #expect(found.kind == .iso21496 && !found.offsetFromFileStart)
        for path in [\GainMapMetadata.gainMapMin, \.gainMapMax, \.gamma, \.baseOffset, \.alternateOffset] {
            #expect(
                (0..<3).allSatisfy { abs(found.metadata[keyPath: path][$0] - Self.metadata[keyPath: path][$0]) < 1e-9 })
        }
        let secondary = Array(file[found.range])
        #expect(
            secondary.suffix(gainMap.count - 2) == gainMap.dropFirst(2), "the gain map's own JPEG follows its markers")
        let segments = try JPEGSegments.read(secondary)
        let xmp = try #require(segments.first { secondary[$0.payload].starts(with: GainMapXMP.jpegSignature) })
        let packet = Array(secondary[xmp.payload].dropFirst(GainMapXMP.jpegSignature.count))
        #expect(try GainMapXMP.adobe(packet)?.metadata == Self.metadata)
        // The primary still starts with JFIF's APP0.
        #expect(try JPEGSegments.read(file).first?.marker == 0xE0)
    }

    @Test func exifToolReadsTheIndexAndTheMetadata() throws {
        try #require(ExifTool.path != nil, "exiftool is not installed")
        let (file, _) = try Self.joined()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gainmap-\(UUID()).jpg")
        try Data(file).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let found = try #require(try GainMapJPEG.locate(in: file))
        let tags = try ExifTool.tags(["-MPF:all", "-XMP-hdrgm:all", "-XMP-Container:all", "-Warning", url.path])
        #expect(tags["Warning"] == nil, "exiftool warns: \(tags["Warning"] ?? "")")
        #expect(tags["NumberOfImages"] as? Int == 2)
        #expect(tags["Version"] as? Double == 1.0)
        #expect(tags["MPImageLength"] as? Int == found.range.count)
        #expect(try ExifTool.run(["-b", "-MPImage2", url.path]) == Array(file[found.range]))
        let gainMapTags = try ExifTool.tags(["-XMP-hdrgm:all", "-"], input: Array(file[found.range]))
        #expect(gainMapTags["GainMapMax"] as? [Double] == [2.5, 2.25, 2])
        #expect(gainMapTags["GainMapMin"] as? [Double] == [0, -0.25, 0])
        #expect(gainMapTags["Gamma"] as? Double == 1.5)
        #expect(gainMapTags["OffsetHDR"] as? Double == 1.0 / 32)
        #expect(gainMapTags["HDRCapacityMax"] as? Double == 2.5)
        #expect(gainMapTags["BaseRenditionIsHDR"] as? Bool == false || gainMapTags["BaseRenditionIsHDR"] as? Int == 0)
    }

    @Test func refusesAGainMapThatAlreadyHasXMPAndMetadataNoViewerCanUse() throws {
        let (file, gainMap) = try Self.joined()
        #expect(throws: GainMapError.self) {
            try GainMapJPEGWriter.layout(insertAt: 2, primaryLength: 100, gainMap: file, metadata: Self.metadata)
        }
        var hdr = Self.metadata
        hdr.gamma = SIMD3(repeating: 0)
        #expect(throws: GainMapError.self) {
            try GainMapJPEGWriter.layout(insertAt: 2, primaryLength: 100, gainMap: gainMap, metadata: hdr)
        }
    }

    /// The segments go after JFIF's APP0 and Exif's APP1, read a header at a time.
    @Test func theSegmentsGoAfterTheLeadingAPP0AndAPP1() throws {
        let camera = try GainMapFiles.bytes("exif-samples/Canon_40D.jpg")
        let segments = try JPEGSegments.read(camera)
        let leading = segments.prefix { $0.marker == 0xE0 || $0.marker == 0xE1 }
        let offset = GainMapJPEGWriter.insertionOffset { at in
            at + 4 <= camera.count ? Array(camera[at..<at + 4]) : nil
        }
        #expect(!leading.isEmpty && offset == leading.last!.payload.upperBound)
        #expect(GainMapJPEGWriter.insertionOffset { _ in nil } == 2)
    }
}
