import DarkroomTestSupport
import Foundation
import GainMaps
import Testing

/// The parsers on gain-map JPEGs made by others (libavif's, libvips', Pillow's test files),
/// checked against exiftool's reading of the same files.
@Suite struct RealFileTests {
    @Test(arguments: GainMapFiles.jpegs.map(\.path))
    func locatesTheGainMapExifToolFinds(path: String) throws {
        let bytes = try GainMapFiles.bytes(path)
        let found = try #require(try GainMapJPEG.locate(in: bytes))
        #expect(found.kind.rawValue == GainMapFiles.jpegs.first { $0.path == path }!.kind)
        #expect(found.imageNumber == 1)
        try #require(ExifTool.path != nil, "exiftool is not installed (make tool-deps installs it)")
        let file = GainMapFiles.url(path).path
        let mpf = try ExifTool.tags(["-MPF:all", file])
        #expect(mpf["NumberOfImages"] as? Int == found.index.images.count)
        #expect(mpf["MPImageLength"] as? Int == Int(found.index.images[1].size) || found.index.images.count > 2)
        let secondImage = try ExifTool.run(["-b", "-MPImage2", file])
        #expect(Array(bytes[found.range]) == secondImage, "the bytes exiftool extracts as MPImage2")
    }

    /// The hdrgm values exiftool reads from each gain map's XMP, against ours.
    @Test(arguments: GainMapFiles.jpegs.filter { $0.kind == "hdrgm" }.map(\.path))
    func hdrgmValuesMatchExifTool(path: String) throws {
        try #require(ExifTool.path != nil, "exiftool is not installed")
        let bytes = try GainMapFiles.bytes(path)
        let found = try #require(try GainMapJPEG.locate(in: bytes))
        let tags = try ExifTool.tags(["-XMP-hdrgm:all", "-"], input: Array(bytes[found.range]))
        func values(_ name: String, _ fallback: Double) -> SIMD3<Double> {
            switch tags[name] {
            case let number as Double: SIMD3(repeating: number)
            case let number as Int: SIMD3(repeating: Double(number))
            case let list as [Any]:
                SIMD3(list.map { ($0 as? Double) ?? Double($0 as! Int) })
            default: SIMD3(repeating: fallback)
            }
        }
        let metadata = found.metadata
        #expect(tags["Version"] as? Double == 1.0 || tags["Version"] as? String == "1.0")
        #expect(close(metadata.gainMapMin, values("GainMapMin", 0)))
        #expect(close(metadata.gainMapMax, values("GainMapMax", .nan)))
        #expect(close(metadata.gamma, values("Gamma", 1)))
        #expect(close(metadata.baseOffset, values("OffsetSDR", 1.0 / 64)))
        #expect(close(metadata.alternateOffset, values("OffsetHDR", 1.0 / 64)))
        #expect(abs(metadata.baseHeadroom - values("HDRCapacityMin", 0).x) < 1e-9)
        #expect(abs(metadata.alternateHeadroom - values("HDRCapacityMax", .nan).x) < 1e-9)
    }

    /// Apple's headroom: the gain map's XMP where it has one (exiftool's HDRGainMapHeadroom),
    /// else the MakerNote's tags 33 and 48 (exiftool's HDRHeadroom, HDRGain) by Apple's formula.
    @Test(arguments: GainMapFiles.jpegs.filter { $0.kind == "apple" }.map(\.path))
    func appleHeadroomMatchesExifTool(path: String) throws {
        try #require(ExifTool.path != nil, "exiftool is not installed")
        let bytes = try GainMapFiles.bytes(path)
        let found = try #require(try GainMapJPEG.locate(in: bytes))
        let gainMapTags = try ExifTool.tags(["-XMP-HDRGainMap:all", "-"], input: Array(bytes[found.range]))
        let makerTags = try ExifTool.tags(["-Apple:HDRHeadroom", "-Apple:HDRGain", GainMapFiles.url(path).path])
        let makerNote = try #require(
            try AppleHeadroom.makerNoteTags(exifPayload: exifPayload(bytes)), "no Apple MakerNote")
        #expect(abs(makerNote.headroom - (makerTags["HDRHeadroom"] as! Double)) < 1e-9)
        #expect(abs(makerNote.gain - Double(truncating: makerTags["HDRGain"] as! NSNumber)) < 1e-9)
        let expectedStops =
            if let linear = gainMapTags["HDRGainMapHeadroom"] as? Double { log2(linear) } else {
                AppleHeadroom.stops(makerNote)
            }
        #expect(abs(found.metadata.alternateHeadroom - expectedStops) < 1e-9)
        #expect(found.metadata.gainMapMax == SIMD3(repeating: found.metadata.alternateHeadroom))
    }

    /// A stereo MPO has an MPF index but no gain map.
    @Test func stereoMPOHasNoGainMap() throws {
        #expect(try GainMapJPEG.locate(in: GainMapFiles.bytes("corpus/pillow/sugarshack.mpo")) == nil)
        #expect(try GainMapJPEG.locate(in: GainMapFiles.bytes("corpus/pillow/hopper.jpg")) == nil)
    }

    /// Pillow's damaged stereo MPOs: nothing in the primary names a gain map, so a broken index
    /// or an image beyond the file loses no gain map (and says none was lost).
    @Test(arguments: ["sugarshack_bad_mpo_header.jpg", "sugarshack_no_data.mpo", "sugarshack_ifd_offset.mpo"])
    func damagedStereoMPOHasNoGainMap(name: String) throws {
        #expect(try GainMapJPEG.locate(in: GainMapFiles.bytes("corpus/pillow/\(name)")) == nil)
    }

    /// The same damage in an Ultra HDR JPEG, whose primary names its gain map, is an error.
    @Test func damagedIndexOfANamedGainMapIsAnError() throws {
        var bytes = try GainMapFiles.bytes("corpus/libvips/ultra-hdr.jpg")
        let segment = try #require(
            try JPEGSegments.read(bytes).first { bytes[$0.payload].starts(with: MPFIndex.signature) })
        bytes[segment.payload.lowerBound + MPFIndex.signature.count] = UInt8(ascii: "X")  // no byte-order mark
        #expect(throws: GainMapError.self) { try GainMapJPEG.locate(in: bytes) }
    }

    private func close(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Bool {
        (0..<3).allSatisfy { abs(a[$0] - b[$0]) < 1e-9 }
    }

    private func exifPayload(_ bytes: [UInt8]) throws -> [UInt8] {
        let exif: [UInt8] = Array("Exif".utf8) + [0, 0]
        let segment = try #require(try JPEGSegments.read(bytes).first { bytes[$0.payload].starts(with: exif) })
        return Array(bytes[segment.payload])
    }
}
