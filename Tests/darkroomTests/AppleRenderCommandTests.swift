import ByteStreams
import DarkroomAdjustments
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import Testing
import Zlib

/// `darkroom render` on a Photos edit: from `--aae`, or from the sidecar beside the input, with
/// the worker's refusal by name and `--apple-geometry-only`.
@Suite struct AppleRenderCommandTests {
    static let command = DarkroomCommand(databaseURL: "postgresql://nobody@127.0.0.1:1/none", storage: "/nonexistent")

    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "darkroom-apple-render-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// An `.AAE` as Photos writes it (an XML property list) around `json`, deflated.
    static func aae(_ json: String) throws -> String {
        let data = Data(try RawDeflate.deflate(Array(json.utf8))).base64EncodedString()
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
            <key>adjustmentBaseVersion</key><integer>0</integer>
            <key>adjustmentData</key><data>\(data)</data>
            <key>adjustmentEditorBundleID</key><string>com.apple.Photos</string>
            <key>adjustmentFormatIdentifier</key><string>com.apple.photo</string>
            <key>adjustmentFormatVersion</key><string>1.5</string>
            </dict></plist>
            """
    }

    @Test func aStraightenFromItsSidecarIsApplesRender() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let name = "9488FC07-B06D-40F2-9F8F-5BE76D7E8215"
        let result = try Self.command.run(
            "render", Fixtures.apple(name + ".jpeg"), "--aae", Fixtures.apple(name + ".plist"), "-o",
            folder + "/out.jpg")
        try #require(result.status == 0, "\(result.stderr)")
        let ours = try DecodedImage(path: folder + "/out.jpg")
        let apple = try DecodedImage(path: Fixtures.apple(name + "_1_201_a.jpeg"))
        #expect(ours.width == apple.width && ours.height == apple.height)
        #expect(ours.psnr(against: apple) > 41.2, "\(ours.psnr(against: apple)) dB")
    }

    /// A render is tagged with the colour space its pixels are in, the original's: its profile,
    /// or none (sRGB) as the original. Apple's renders are Display P3. Both in sRGB (Apple's
    /// converted with Little CMS), they compare closer than as stored: the straighten 42.4 dB
    /// (41.4 as stored), the crop 42.4 dB (37.0).
    @Test(arguments: [
        (
            "9488FC07-B06D-40F2-9F8F-5BE76D7E8215.jpeg", "9488FC07-B06D-40F2-9F8F-5BE76D7E8215.plist",
            "9488FC07-B06D-40F2-9F8F-5BE76D7E8215_1_201_a.jpeg", 42.2
        ),
        ("wedding.jpg", "wedding.AAE", "wedding_edited.jpg", 42),
    ])
    func inOneColorSpaceTheRenderIsApples(original: String, sidecar: String, render: String, floor: Double) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Self.command.run(
            "render", Fixtures.apple(original), "--aae", Fixtures.apple(sidecar), "-o", folder + "/out.jpg")
        try #require(result.status == 0, "\(result.stderr)")
        func profile(_ path: String) throws -> [UInt8]? {
            try SourceHeader.read(from: FileSource(path: path)).iccProfile
        }
        let ours = try profile(folder + "/out.jpg")
        let originals = try profile(Fixtures.apple(original))
        #expect(ours == originals)
        let appleProfile = try #require(try profile(Fixtures.apple(render)))
        #expect(appleProfile != originals)
        let rendered = try DecodedImage(path: folder + "/out.jpg")
        let apple = try DecodedImage(path: Fixtures.apple(render))
        var converted = apple
        converted.pixels = try SRGBConversion(fromICC: appleProfile).convert(apple.pixels)
        let stored = rendered.psnr(against: apple)
        let inSRGB = rendered.psnr(against: converted)
        #expect(inSRGB > stored && inSRGB > floor, "\(inSRGB) dB in sRGB, \(stored) dB as stored")
    }

    @Test func theSidecarBesideTheInputIsFoundByPhotosNaming() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: Fixtures.apple("wedding.jpg"), toPath: folder + "/IMG_1234.JPG")
        try FileManager.default.copyItem(atPath: Fixtures.apple("wedding.AAE"), toPath: folder + "/img_1234.aae")
        let result = try Self.command.run("render", folder + "/IMG_1234.JPG", "-o", folder + "/out.jpg")
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("img_1234.aae"), "\(result.stderr)")
        let ours = try DecodedImage(path: folder + "/out.jpg")
        let apple = try DecodedImage(path: Fixtures.apple("wedding_edited.jpg"))
        #expect(ours.width == 1526 && ours.height == 1325)
        #expect(ours.psnr(against: apple) > 35)
        // Adjustment data given says what to render: the sidecar is not looked for.
        let plain = try Self.command.run(
            "render", folder + "/IMG_1234.JPG", "--data", #"{"operations":[]}"#, "-o", folder + "/plain.jpg")
        try #require(plain.status == 0, "\(plain.stderr)")
        #expect(try DecodedImage(path: folder + "/plain.jpg").width == 2048)
    }

    @Test func whatDarkroomCannotReproduceIsRefusedUnlessGeometryOnly() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let json = """
            {"metadata":{"masterWidth":2048,"masterHeight":1367,"orientation":1},"formatVersion":1,"adjustments":[\
            {"identifier":"SmartTone","enabled":true,"settings":{"inputLight":0.2}},\
            {"identifier":"Crop","enabled":true,"settings":{"xOrigin":0,"yOrigin":1,"width":1526,"height":1325}}]}
            """
        try Self.aae(json).write(toFile: folder + "/toned.AAE", atomically: true, encoding: .utf8)
        let arguments = ["render", Fixtures.apple("wedding.jpg"), "--aae", folder + "/toned.AAE"]
        let refused = try Self.command.run(arguments + ["-o", folder + "/refused.jpg"])
        #expect(refused.status != 0 && refused.stderr.contains("SmartTone"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/refused.jpg"))
        let geometry = try Self.command.run(arguments + ["--apple-geometry-only", "-o", folder + "/geometry.jpg"])
        try #require(geometry.status == 0, "\(geometry.stderr)")
        #expect(geometry.stderr.contains("apple_geometry_only") && geometry.stderr.contains("SmartTone"))
        let ours = try DecodedImage(path: folder + "/geometry.jpg")
        #expect(ours.width == 1526 && ours.height == 1325)
    }
}
