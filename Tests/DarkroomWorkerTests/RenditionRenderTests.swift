import ByteStreams
import DarkroomImaging
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import LibHeif
import Testing

/// Renditions from one decode, checked with readers darkroom did not write (libvips, libwebp's
/// and libheif's tools, exiftool): formats, sizes, what metadata each keeps, colour, HDR, the
/// pixels against an independent downscale of the full render, and the same bytes at every budget.
@Suite(.serialized) struct RenditionRenderTests {
    /// A real iPhone photo: Display P3, GPS-tagged, 3024 × 4032 upright.
    static let phone = Fixtures.root.appendingPathComponent("corpus/osxphotos/IMG_1853.HEIC").path
    /// A real iPhone HDR photo (an Apple gain map), 4284 × 5712 upright.
    static let hdrPhone = Fixtures.root.appendingPathComponent("corpus/osxphotos/IMG_3582.HEIC").path

    static let service: [RenditionVersion] = [
        RenditionVersion(.display(), version: 1),
        RenditionVersion(Rendition(name: "thumb", format: .webp, longestSide: 320, quality: 80), version: 1),
        RenditionVersion(
            Rendition(
                name: "preview", format: .avif, longestSide: 1440, quality: 60, metadata: .noLocation, keepsHDR: true),
            version: 2),
        RenditionVersion(
            Rendition(
                name: "share", format: .jpeg, longestSide: 2048, quality: 85, metadata: .noLocation, color: .srgb),
            version: 1),
        RenditionVersion(Rendition(name: "bare", format: .webp, longestSide: 640, metadata: .none), version: 1),
    ]

    struct Rendered {
        var folder: String
        var result: RenderResult
        var provenance: RenderProvenance
        func path(_ name: String) -> String {
            let rendition = RenditionRenderTests.service.first { $0.rendition.name == name }!.rendition
            return folder + "/\(name).\(rendition.format.fileExtension)"
        }
    }

    static func render(
        _ input: String, renditions: [RenditionVersion] = service, budget: Int = 256 << 20
    ) throws -> Rendered {
        let folder = NSTemporaryDirectory() + "darkroom-renditions-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var settings = RenderSettings(memoryBudget: budget)
        settings.threads = 1
        settings.renditions = renditions
        var render = FileRender(
            inputPath: input, outputPath: folder + "/full.jpg", formatIdentifier: "io.darkroom.pipeline",
            formatVersion: "1.0.0", data: Array(#"{"operations":[]}"#.utf8), settings: settings)
        render.renditionPaths = renditions.map { folder + "/\($0.rendition.name).\($0.rendition.format.fileExtension)" }
        let rendered = try render.render()
        return Rendered(folder: folder, result: rendered.result, provenance: rendered.provenance)
    }

    static func exif(_ path: String) throws -> [String: Any] {
        try ExifTool.tags(["-G", "-n", "-GPSLatitude", "-Make", "-ProfileDescription", "-ImageWidth", path])
    }

    @Test func eachRenditionHasItsFormatSizeMetadataAndColour() throws {
        let rendered = try Self.render(Self.phone)
        defer { try? FileManager.default.removeItem(atPath: rendered.folder) }
        #expect(rendered.result.outputSize == PixelSize(width: 3024, height: 4032))
        #expect(
            rendered.result.renditions.map(\.size) == [
                PixelSize(width: 1536, height: 2048), PixelSize(width: 240, height: 320),
                PixelSize(width: 1080, height: 1440), PixelSize(width: 1536, height: 2048),
                PixelSize(width: 480, height: 640),
            ])

        // The WebP thumbnail: libwebp's reader finds a VP8 picture with its profile and EXIF.
        let thumbInfo = try ReferenceImages.run("webpinfo", [rendered.path("thumb")])
        #expect(thumbInfo.status == 0 && thumbInfo.output.contains("ICCP") && thumbInfo.output.contains("EXIF"))
        #expect(thumbInfo.output.contains("Width: 240") && thumbInfo.output.contains("Height: 320"), "\(thumbInfo)")
        // The AVIF preview: libheif's reader finds an AV1 picture of 1080 × 1440.
        let previewInfo = try ReferenceImages.run("heif-info", [rendered.path("preview")])
        #expect(previewInfo.status == 0 && previewInfo.output.contains("1080x1440"), "\(previewInfo.output)")
        #expect(try String(contentsOfFile: rendered.path("preview"), encoding: .isoLatin1).contains("avif"))

        // Location: kept in the thumbnail, gone from the preview and the share copy, whose
        // other EXIF stays; the bare copy carries no EXIF at all, only its colour profile.
        let thumb = try Self.exif(rendered.path("thumb"))
        #expect(abs((thumb["EXIF:GPSLatitude"] as? Double ?? 0) - 32.84397) < 1e-3, "\(thumb)")
        for name in ["preview", "share"] {
            let tags = try Self.exif(rendered.path(name))
            #expect(tags["EXIF:GPSLatitude"] == nil, "\(name) keeps its location: \(tags)")
            #expect(tags["EXIF:Make"] as? String == "Apple", "\(name): \(tags)")
        }
        let bare = try Self.exif(rendered.path("bare"))
        #expect(bare["EXIF:Make"] == nil && bare["EXIF:GPSLatitude"] == nil, "\(bare)")
        #expect((bare["ICC_Profile:ProfileDescription"] as? String)?.contains("P3") == true, "\(bare)")
        // Colour: the share copy is converted to sRGB and says so; the others keep Display P3.
        #expect(
            (try Self.exif(rendered.path("share"))["ICC_Profile:ProfileDescription"] as? String)?.contains("sRGB")
                == true)
        #expect((thumb["ICC_Profile:ProfileDescription"] as? String)?.contains("P3") == true, "\(thumb)")
        // No rendition carries the original's file name.
        for written in Self.service {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: rendered.path(written.rendition.name)))
            #expect(bytes.range(of: Data("IMG_1853".utf8)) == nil, "\(written.rendition.name) names the original")
        }
    }

    @Test func eachRenditionMatchesAnIndependentDownscaleOfTheFullRender() throws {
        let rendered = try Self.render(Self.phone)
        defer { try? FileManager.default.removeItem(atPath: rendered.folder) }
        let full = rendered.folder + "/full.jpg"
        for written in rendered.result.renditions {
            let ours = try ReferenceImages.decode(rendered.path(written.rendition.name))
            let (width, height) = (written.size.width, written.size.height)
            let converted = written.rendition.color == .srgb
            let reference = try ReferenceImages.scaled(
                full, width: width, height: height, exportProfile: converted ? "srgb" : nil)
            #expect(ours.width == reference.width && ours.height == reference.height)
            let psnr = ours.psnr(against: reference)
            #expect(psnr > 30, "\(written.rendition.name): \(psnr) dB against libvips' downscale")
            if converted {
                // Closer to libvips' own conversion to sRGB than to the unconverted picture.
                let unconverted = try ReferenceImages.scaled(full, width: width, height: height)
                #expect(psnr > ours.psnr(against: unconverted) + 1, "\(written.rendition.name) is not converted")
            }
        }
    }

    /// The least budget `input`'s render fits, within 2 MiB: from what the planner's refusal
    /// at 1 MiB says it needs, upwards (a plan's spill and bands depend on the budget). With
    /// `keepingHDR`, the least at which it and every rendition that keeps HDR carry its gain map
    /// (below it, the map is left out of the AVIF renditions, then dropped).
    static func leastBudget(_ input: String, keepingHDR: Bool = false) throws -> Int {
        var budget = 1 << 20
        for _ in 0..<64 {
            do {
                let rendered = try render(input, budget: budget)
                try? FileManager.default.removeItem(atPath: rendered.folder)
                let leftOut = rendered.result.warnings.contains {
                    ["gain_map.dropped", "rendition.gain_map_left_out"].contains($0.code)
                }
                if keepingHDR, leftOut {
                    budget += 1 << 20
                    continue
                }
                return budget
            } catch let error as RenderError where error.code == .memoryBudgetExceeded {
                budget = max(budget + (2 << 20), error.bytesNeeded ?? 0)
            }
        }
        throw ReferenceError("\(input) fits no budget up to \(budget) bytes")
    }

    /// A HEIC decoded whole and JPEGs read in strips (one with an Apple gain map, which the
    /// display and the AVIF preview carry), each at a roomy budget, at the least budget its
    /// render fits and halfway between.
    @Test(arguments: [
        phone, Fixtures.exifSample("hdr/iphone_hdr_NO.jpg").path,
        Fixtures.root.appendingPathComponent("gainmaps/apple_gainmap_new.jpg").path,
    ])
    func renditionsAreTheSameBytesAtEveryBudget(input: String) throws {
        let roomy = try Self.render(input, budget: 1 << 30)
        defer { try? FileManager.default.removeItem(atPath: roomy.folder) }
        let least = try Self.leastBudget(input, keepingHDR: roomy.result.hdr != nil)
        for budget in [least, (least + (1 << 30)) / 2] {
            let other = try Self.render(input, budget: budget)
            defer { try? FileManager.default.removeItem(atPath: other.folder) }
            #expect(other.result.plan.memory.total <= budget)
            for written in Self.service {
                let name = written.rendition.name
                let a = try Data(contentsOf: URL(fileURLWithPath: roomy.path(name)))
                let b = try Data(contentsOf: URL(fileURLWithPath: other.path(name)))
                #expect(a == b, "\(name) differs between budgets of 1 GiB and \(budget) bytes")
            }
        }
    }

    @Test func theRecordListsWhatWasWritten() throws {
        let rendered = try Self.render(Self.phone)
        defer { try? FileManager.default.removeItem(atPath: rendered.folder) }
        let json = rendered.provenance.json
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
        let renditions = try #require(object["renditions"] as? [[String: Any]])
        #expect(renditions.map { $0["name"] as? String } == ["display", "thumb", "preview", "share", "bare"])
        #expect(renditions[2]["version"] as? Int == 2 && renditions[2]["format"] as? String == "avif")
        let bytes = try FileManager.default.attributesOfItem(atPath: rendered.path("preview"))[.size] as? Int
        #expect(renditions[2]["bytes"] as? Int == bytes && renditions[2]["height"] as? Int == 1440)
    }

    @Test func anHDRPhotosJPEGAndAVIFRenditionsCarryTheGainMapAndWebPIsStandardRange() throws {
        let renditions = [
            RenditionVersion(.display(), version: 1),
            RenditionVersion(Rendition(name: "preview", format: .jpeg, longestSide: 1440, keepsHDR: true), version: 1),
            RenditionVersion(
                Rendition(name: "hdrpreview", format: .avif, longestSide: 1440, quality: 60, keepsHDR: true),
                version: 1),
            RenditionVersion(Rendition(name: "thumb", format: .webp, longestSide: 320), version: 1),
        ]
        let rendered = try Self.render(Self.hdrPhone, renditions: renditions)
        defer { try? FileManager.default.removeItem(atPath: rendered.folder) }
        #expect(rendered.result.hdr != nil, "\(rendered.result.warnings)")
        for name in ["display", "preview"] {
            let tags = try ExifTool.tags(["-G1", "-n", "-MPF:all", "-XMP-hdrgm:all", rendered.folder + "/\(name).jpg"])
            #expect(tags["MPF0:NumberOfImages"] as? Int == 2, "\(name): \(tags)")
            #expect(tags["XMP-hdrgm:Version"] != nil, "\(name): \(tags)")
        }
        // The preview's map is the preview's share of the picture at the map's resolution.
        let preview = try Data(contentsOf: URL(fileURLWithPath: rendered.folder + "/preview.jpg"))
        let mapBytes = try ExifTool.run(["-b", "-MPImage2", "-"], input: Array(preview))
        let mapSize = try ExifTool.tags(["-n", "-ImageWidth", "-ImageHeight", "-"], input: mapBytes)
        let width = try #require(mapSize["ImageWidth"] as? Int)
        let height = try #require(mapSize["ImageHeight"] as? Int)
        #expect(abs(Double(width) / Double(height) - 1080.0 / 1440.0) < 0.02, "map \(width)×\(height)")
        let thumb = try ExifTool.tags(["-G1", "-XMP-hdrgm:all", rendered.folder + "/thumb.webp"])
        #expect(thumb["XMP-hdrgm:Version"] == nil)

        // The AVIF: libheif's tool sees one image and the tmap brand; darkroom's reader finds the
        // tmap on the picture, with a map of the JPEG preview's size whose pixels are the full
        // render's map scaled down by libvips.
        let avif = rendered.folder + "/hdrpreview.avif"
        let info = try ReferenceImages.run("heif-info", [avif])
        #expect(info.status == 0 && info.output.contains("tmap"), "\(info.output)")
        #expect(info.output.components(separatedBy: "\nimage: ").count == 2, "the map is not hidden: \(info.output)")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: avif)))
        let decoder = try HEIFDecoder(source: ChunkedSource(bytes, name: avif, maxChunk: 1 << 16))
        #expect(decoder.header.width == 1080 && decoder.header.height == 1440)
        let toneMap = try #require(decoder.header.toneMap, "the AVIF has no tmap item")
        #expect(!toneMap.data.isEmpty)
        let map = try decoder.decodeToneMapGainMap()
        #expect(
            map.width == width && map.height == height, "AVIF map \(map.width)×\(map.height), JPEG's \(width)×\(height)"
        )
        let fullMap = rendered.folder + "/full-map.jpg"
        let full = try Data(contentsOf: URL(fileURLWithPath: rendered.folder + "/full.jpg"))
        try Data(try ExifTool.run(["-b", "-MPImage2", "-"], input: Array(full))).write(
            to: URL(fileURLWithPath: fullMap))
        let reference = try ReferenceImages.scaled(fullMap, width: map.width, height: map.height)
        let samples = map.channels == 1 ? map.samples.flatMap { [$0, $0, $0] } : map.samples
        let ours = DecodedImage(width: map.width, height: map.height, pixels: samples)
        let psnr = ours.psnr(against: reference)
        #expect(psnr > 30, "the AVIF's map is \(psnr) dB from libvips' downscale of the full render's map")
    }

    /// At a budget that holds the render and its map but not an AVIF coder for the map too (the
    /// plan asks about 125 MiB without it and 154 MiB with it), the AVIF is standard range and
    /// says why; the render and its JPEG display copy keep HDR.
    @Test func anAVIFWhoseMapCoderDoesNotFitIsStandardRangeAndTheRestKeepHDR() throws {
        let renditions = [
            RenditionVersion(.display(), version: 1),
            RenditionVersion(Rendition(name: "preview", format: .avif, longestSide: 1440, keepsHDR: true), version: 1),
        ]
        let rendered = try Self.render(Self.hdrPhone, renditions: renditions, budget: 140 << 20)
        defer { try? FileManager.default.removeItem(atPath: rendered.folder) }
        #expect(rendered.result.hdr != nil, "\(rendered.result.warnings)")
        let codes = rendered.result.warnings.map(\.code)
        #expect(codes.contains("rendition.gain_map_left_out") && !codes.contains("gain_map.dropped"), "\(codes)")
        let display = try ExifTool.tags(["-G1", "-n", "-MPF:all", rendered.folder + "/display.jpg"])
        #expect(display["MPF0:NumberOfImages"] as? Int == 2, "\(display)")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: rendered.folder + "/preview.avif")))
        let decoder = try HEIFDecoder(source: ChunkedSource(bytes, name: "preview.avif", maxChunk: 1 << 16))
        #expect(decoder.header.toneMap == nil)
    }
}
