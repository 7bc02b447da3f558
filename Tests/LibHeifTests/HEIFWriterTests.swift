import ByteStreams
import DarkroomTestSupport
import Foundation
import LibHeif
import Testing

/// The production AVIF writer on a real photo, read back by libheif's own tools and by darkroom.
@Suite struct HEIFWriterTests {
    static let name = "renders/ab/preview.avif"

    /// A NIKON D810 photo (2048×1367) of Photos' fixtures, area-averaged to `longSide`.
    static func photo(longSide: Int) throws -> DecodedImage {
        let original = try DecodedImage(path: Fixtures.apple("wedding.jpg"))
        return scaled(original, longSide: longSide)
    }

    static func scaled(_ image: DecodedImage, longSide: Int) -> DecodedImage {
        let (w, h) = (image.width, image.height)
        let width = w >= h ? longSide : max(1, w * longSide / h)
        let height = w >= h ? max(1, h * longSide / w) : longSide
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            let (y0, y1) = (y * h / height, max(y * h / height + 1, (y + 1) * h / height))
            for x in 0..<width {
                let (x0, x1) = (x * w / width, max(x * w / width + 1, (x + 1) * w / width))
                let count = (x1 - x0) * (y1 - y0)
                for c in 0..<3 {
                    var sum = 0
                    for yy in y0..<y1 {
                        for xx in x0..<x1 { sum += Int(image.pixels[(yy * w + xx) * 3 + c]) }
                    }
                    pixels[(y * width + x) * 3 + c] = UInt8((sum + count / 2) / count)
                }
            }
        }
        return DecodedImage(width: width, height: height, pixels: pixels)
    }

    static func encode(_ image: DecodedImage, _ settings: HEIFWriteSettings) throws(HEIFError) -> [UInt8] {
        try image.pixels.withUnsafeBufferPointer { (rgb) throws(HEIFError) in
            try HEIFWriter.encode(rgb: rgb, width: image.width, height: image.height, settings: settings, name: name)
        }
    }

    /// Runs a tool, its standard output as text; nil when it exits with a failure.
    static func run(_ tool: String, _ arguments: [String]) throws -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }

    static func temporaryFile(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("darkroom-\(UUID().uuidString)\(suffix)").path
    }

    static var displayP3: [UInt8] {
        get throws { try Fixtures.bytes(of: Fixtures.root.appendingPathComponent("icc/apple-display-p3.icc")) }
    }

    /// heif-info and exiftool (not darkroom) read an AVIF of the photo's size with its Exif and
    /// ICC profile; heif-dec and darkroom's decoder decode it close to the photo.
    @Test(arguments: [1440, 320])
    func aPhotoBecomesAnAVIFOthersRead(longSide: Int) throws {
        let photo = try Self.photo(longSide: longSide)
        let exif = HEIFFixtures.exif(orientation: 1, gps: true)
        let icc = try Self.displayP3
        let bytes = try Self.encode(photo, HEIFWriteSettings(quality: 60, exif: exif, iccProfile: icc))
        let file = Self.temporaryFile(".avif")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try HEIFFixtures.write(bytes, to: file)

        let info = try #require(try Self.run("/usr/bin/heif-info", [file]), "heif-info cannot read the file")
        #expect(info.contains("MIME type: image/avif") && info.contains("main brand: avif"), "\(info)")
        #expect(info.contains("image: \(photo.width)x\(photo.height)"), "\(info)")
        #expect(info.contains("colorspace: YCbCr, 4:2:0") && info.contains("bit depth: 8"), "\(info)")
        // The item: a 4-byte offset to the TIFF header, then the block as given.
        #expect(info.contains("Exif: \(exif.count + 4) bytes"), "\(info)")
        #expect(info.contains("color profile: prof"), "\(info)")
        #expect(HEIFFileType(prefix: bytes.prefix(HEIFFileType.sniffLength))?.majorBrand == "avif")

        if ExifTool.path != nil {
            let tags = try ExifTool.tags(["-G", file])
            #expect(tags["File:FileType"] as? String == "AVIF", "\(tags)")
            #expect(tags["QuickTime:MajorBrand"] as? String == "avif", "\(tags)")
            #expect(tags["EXIF:Make"] as? String == "Apple", "\(tags)")
            #expect(tags["ICC_Profile:ProfileDescription"] as? String == "Display P3", "\(tags)")
            #expect(tags["File:ImageWidth"] as? Int == photo.width && tags["File:ImageHeight"] as? Int == photo.height)
        }

        let decoder = try HEIFDecoder(source: ChunkedSource(bytes, name: Self.name, maxChunk: 1 << 16))
        #expect(decoder.header.exifPayload == exif && decoder.header.iccProfile == icc)
        #expect(decoder.header.width == photo.width && decoder.header.height == photo.height)
        let decoded = try HEIFDecoderTests.decodeAll(decoder)
        let ours = DecodedImage(width: photo.width, height: photo.height, pixels: decoded).psnr(against: photo)
        #expect(ours >= 30, "darkroom's decode is \(ours) dB from the photo")

        // heif-dec's own decode, as a JPEG at quality 100 (what the test support reads).
        let jpeg = Self.temporaryFile(".jpg")
        defer { try? FileManager.default.removeItem(atPath: jpeg) }
        #expect(try Self.run("/usr/bin/heif-dec", ["-q", "100", file, jpeg]) != nil)
        let theirs = try DecodedImage(path: jpeg)
        #expect(theirs.width == photo.width && theirs.height == photo.height)
        let psnr = theirs.psnr(against: photo)
        #expect(psnr >= 30, "heif-dec's decode is \(psnr) dB from the photo")
    }

    /// nclx instead of ICC, XMP, 4:4:4 and an orientation: each as libheif's reader sees it.
    @Test func whatTheSettingsSayIsInTheFile() throws {
        let photo = try Self.photo(longSide: 320)
        let xmp = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>"#.utf8)
        let bare = Array(HEIFFixtures.exif(orientation: 6).dropFirst(6))
        let bytes = try Self.encode(
            photo,
            HEIFWriteSettings(
                quality: 80, speed: 9, chroma: .yuv444, orientation: 6, exif: bare, xmp: xmp, nclx: .displayP3))
        let file = Self.temporaryFile(".avif")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try HEIFFixtures.write(bytes, to: file)
        let info = try #require(try Self.run("/usr/bin/heif-info", [file]))
        #expect(info.contains("colorspace: YCbCr, 4:4:4") && info.contains("XMP"), "\(info)")
        #expect(info.contains("image: \(photo.height)x\(photo.width)"), "the irot turns it: \(info)")
        let header = try HEIFDecoder(source: ChunkedSource(bytes)).header
        #expect(header.nclx == .displayP3 && header.iccProfile == nil && header.xmpPacket == xmp)
        #expect(header.exifPayload == HEIFExifBlock.app1Header + bare)
        #expect(header.transforms == [.rotation(counterClockwiseDegrees: 270)], "\(header.transforms)")
    }

    @Test func hevcWritesAHEIC() throws {
        let photo = try Self.photo(longSide: 320)
        let bytes = try Self.encode(photo, HEIFWriteSettings(codec: .hevc, quality: 60))
        let header = try HEIFDecoder(source: ChunkedSource(bytes)).header
        #expect(header.fileType.majorBrand == "heic" && header.width == photo.width)
    }

    /// Refused before libheif is called: darkroom's code and message, no libheif code.
    @Test(arguments: [
        (0, 10, 0, HEIFWriteSettings(quality: 60), HEIFError.Code.misuse, "0×10 pixels"),
        (10, 0, 0, HEIFWriteSettings(quality: 60), .misuse, "10×0 pixels"),
        (-4, 10, 0, HEIFWriteSettings(quality: 60), .misuse, "-4×10 pixels"),
        (10, 10, -1, HEIFWriteSettings(quality: 60), .misuse, "holds 299 bytes, but 10×10 pixels need 300"),
        (10, 10, 1, HEIFWriteSettings(quality: 60), .misuse, "holds 301 bytes"),
        (10, 10, 0, HEIFWriteSettings(quality: 0), .misuse, "quality 0 is outside 1…100"),
        (10, 10, 0, HEIFWriteSettings(quality: 101), .misuse, "quality 101 is outside 1…100"),
        (10, 10, 0, HEIFWriteSettings(quality: 60, speed: 10), .misuse, "speed 10 is outside AOM's 0…9"),
        (10, 10, 0, HEIFWriteSettings(quality: 60, speed: -1), .misuse, "speed -1"),
        (10, 10, 0, HEIFWriteSettings(quality: 60, orientation: 9), .misuse, "orientation 9"),
        (10, 10, 0, HEIFWriteSettings(quality: 60, exif: []), .misuse, "the EXIF block is empty"),
        (10, 10, 0, HEIFWriteSettings(quality: 60, exif: Array("Exif\0\0no TIFF".utf8)), .misuse, "TIFF header"),
        (10, 10, 0, HEIFWriteSettings(quality: 60, iccProfile: []), .misuse, "the ICC profile block is empty"),
        (HEIFWriter.maxSide + 1, 1, 0, HEIFWriteSettings(quality: 60), .tooLarge, "larger than the 16384 a side"),
    ])
    func badInputsAreRefusedFirst(
        width: Int, height: Int, extraBytes: Int, settings: HEIFWriteSettings, code: HEIFError.Code, says: String
    ) {
        let count = max(0, width) * max(0, height) * 3 + extraBytes
        let rgb = [UInt8](repeating: 128, count: max(0, count))
        do {
            _ = try rgb.withUnsafeBufferPointer { (buffer) throws(HEIFError) in
                try HEIFWriter.encode(rgb: buffer, width: width, height: height, settings: settings, name: Self.name)
            }
            Issue.record("\(width)×\(height) with \(settings) was written")
        } catch {
            #expect(error.code == code && error.object == Self.name, "\(error)")
            #expect(error.message.contains(says), "\(error.message)")
            #expect(error.libheifCode == 0 && error.libheifSubcode == 0 && error.whileWriting, "\(error)")
            #expect(error.description == "\(Self.name): \(error.message)")
        }
    }

    /// The bound stays above the largest peaks measured (`workingBytes`' comment) with room.
    @Test func theWorkingBytesCoverTheMeasuredPeaks() {
        let measured: [(Int, Int, HEIFWriteSettings, Double)] = [
            (1440, 961, HEIFWriteSettings(quality: 80), 53.9),
            (1440, 961, HEIFWriteSettings(quality: 100, lossless: true, chroma: .yuv444), 80.8),
            (1080, 1440, HEIFWriteSettings(quality: 80, speed: 4, chroma: .yuv444), 98.0),
            (3024, 4032, HEIFWriteSettings(quality: 80), 284.6),
            (320, 213, HEIFWriteSettings(quality: 80, speed: 0), 9.8),
        ]
        for (width, height, settings, mebibytes) in measured {
            let bound = Double(HEIFWriter.workingBytes(width: width, height: height, settings: settings))
            #expect(bound >= 1.25 * mebibytes * 1_048_576, "\(width)×\(height) \(settings)")
        }
    }

    @Test func theWorkingBytesGrowWithThePictureAndItsMetadata() {
        let plain = HEIFWriteSettings(quality: 60)
        let small = HEIFWriter.workingBytes(width: 320, height: 213, settings: plain)
        let preview = HEIFWriter.workingBytes(width: 1440, height: 961, settings: plain)
        #expect(small < preview && preview < HEIFWriter.workingBytes(width: 2048, height: 1367, settings: plain))
        let full = HEIFWriteSettings(quality: 60, chroma: .yuv444)
        #expect(preview < HEIFWriter.workingBytes(width: 1440, height: 961, settings: full))
        let withICC = HEIFWriteSettings(quality: 60, iccProfile: [UInt8](repeating: 1, count: 1 << 20))
        #expect(HEIFWriter.workingBytes(width: 1440, height: 961, settings: withICC) >= preview + (2 << 20))
    }
}
