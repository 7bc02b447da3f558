import DarkroomAdjustments
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import Testing
import Zlib

/// `.AAE` sidecars and `com.apple.photo` data from real Photos libraries
/// (Tests/Fixtures/apple/README.md), and the geometry darkroom makes of them.
@Suite("Apple Photos' edits")
struct ApplePhotoTests {
    static func sidecar(_ name: String) throws -> AppleSidecar {
        try AppleSidecar.decode(Fixtures.bytes(of: Fixtures.root.appendingPathComponent("apple/\(name)")))
    }

    static func edit(_ name: String) throws -> ApplePhotoEdit {
        try ApplePhotoFormat.decode(sidecar(name).data)
    }

    @Test func readsEverySidecarAsPhotosWroteIt() throws {
        let wedding = try Self.sidecar("wedding.AAE")
        #expect(wedding.formatIdentifier == "com.apple.photo" && wedding.formatVersion == "1.4")
        #expect(wedding.editorBundleID == "com.apple.photos" && wedding.baseVersion == 0 && wedding.data.count == 287)
        let keyFrame = try Self.sidecar("IMG_1853.AAE")
        // 2024-06-01T22:19:30Z.
        #expect(keyFrame.timestamp == 738_973_170)
        let names: [(String, String, [String])] = [
            ("wedding.AAE", "1.4", ["Crop"]),
            ("IMG_1853.AAE", "1.4", ["LivePhotoKeyFrame"]),
            ("IMG_1994.AAE", "1.5", ["SmartBlackAndWhite", "SmartColor", "SmartTone"]),
            ("IMG_3582.AAE", "1.11", ["SmartBlackAndWhite", "DepthEffect"]),
            ("IMG_O3582.aae", "1.11", ["DepthEffect"]),
            ("IMG_O3932.aae", "1.10", ["PortraitVideo"]),
            ("6191423D-8DB8-4D4C-92BE-9BBBA308AAC4.plist", "1.4", ["Effect 3DDramaticCool"]),
            ("5E425216-477A-4215-A330-6E51E8A6D882.plist", "1.9.1", ["SmartBlackAndWhite", "RKRawDecodeOperation"]),
            ("2F7AF9F2-2930-4A8E-BCC7-D6DB52DAAB0D.plist", "1.4", []),
        ]
        for (file, version, adjustments) in names {
            let sidecar = try Self.sidecar(file)
            #expect(sidecar.formatVersion == version, "\(file)")
            #expect(SemanticVersion(sidecar.formatVersion) != nil, "\(file): stored as it is written")
            #expect(try ApplePhotoFormat.decode(sidecar.data).adjustments.map(\.name) == adjustments, "\(file)")
        }
        let external = try Self.sidecar("St James Park.AAE")
        #expect(external.formatIdentifier == "com.apple.Photos.externalEdit" && external.data.count == 12)
        let notDeflate = #expect(throws: AdjustmentError.self) { try ApplePhotoFormat.decode(external.data) }
        #expect(notDeflate?.code == .malformedData)
    }

    @Test func summariesNameTheAdjustments() throws {
        #expect(
            ApplePhotoFormat.summary(of: try Self.sidecar("6191423D-8DB8-4D4C-92BE-9BBBA308AAC4.plist").data)
                == "Effect 3DDramaticCool")
        #expect(
            ApplePhotoFormat.summary(of: try Self.sidecar("2F7AF9F2-2930-4A8E-BCC7-D6DB52DAAB0D.plist").data)
                == "no adjustments, orientation 2")
        #expect(ApplePhotoFormat.summary(of: [1, 2, 3]) == nil)
    }

    /// Every entry is kept as it stands in the JSON, whatever darkroom makes of it.
    @Test func keepsEachAdjustmentByteForByte() throws {
        let edit = try Self.edit("IMG_1994.AAE")
        let json = String(decoding: edit.json, as: UTF8.self)
        for adjustment in edit.adjustments {
            let raw = String(decoding: adjustment.raw, as: UTF8.self)
            #expect(raw.hasPrefix("{") && raw.hasSuffix("}") && json.contains(raw))
            #expect(raw.contains("\"identifier\":\"\(adjustment.identifier)\""))
        }
        #expect(edit.adjustments.map(\.enabled) == [true, true, true])  // written as 1
        #expect(try Self.edit("IMG_1853.AAE").adjustments[0].enabled)  // no enabled key
    }

    // MARK: The plan, against Apple's own renders' sizes

    /// Crop only: the window in top-left pixels is 1526×1325 at y = 1367 − 1 − 1325; Photos'
    /// render is 1526×1325.
    @Test func weddingCropsToApplesRender() throws {
        let plan = try ApplePhotoPlan(Self.edit("wedding.AAE"), pictureSize: PixelSize(width: 2048, height: 1367))
        #expect(plan.geometry.window == PixelRect(x: 0, y: 41, width: 1526, height: 1325))
        #expect(plan.geometry.straightenAngle == 0 && plan.geometry.orientation == .up)
        #expect(plan.geometry.operations() == [.crop(PixelRect(x: 0, y: 41, width: 1526, height: 1325))])
        #expect(plan.unsupported.isEmpty && plan.ignored.isEmpty && plan.geometryOnlyWarning == nil)
    }

    /// A straighten of −0.0185 rad (1.06° counter-clockwise on screen) on a JPEG shown upside
    /// down (EXIF 3): the rotation stage gets +0.0185, the window stays in the master's frame
    /// (y = 960 − 196 − 755 = 9) and orientation 3 comes last; Photos' render is 897×755.
    @Test func straightenedCropOnAnUpsideDownJPEG() throws {
        let plan = try ApplePhotoPlan(
            Self.edit("9488FC07-B06D-40F2-9F8F-5BE76D7E8215.plist"), pictureSize: PixelSize(width: 1280, height: 960))
        let geometry = plan.geometry
        #expect(geometry.straightenAngle == 0.018509803624153255)
        #expect(geometry.window == PixelRect(x: 181, y: 9, width: 897, height: 755))
        #expect(geometry.orientation == .down)
        // Turned upside down first (as a render orients first), the window moves to the other
        // corner; a half turn keeps the angle's direction.
        let oriented = geometry.oriented
        #expect(oriented.window == PixelRect(x: 1280 - 181 - 897, y: 960 - 9 - 755, width: 897, height: 755))
        #expect(oriented.angle == geometry.straightenAngle)
        #expect(oriented.window.size == PixelSize(width: 897, height: 755))
        #expect(
            geometry.operations() == [.rotate(Rotation(radians: oriented.angle, window: .rect(oriented.window)))])
    }

    /// A flip is only an orientation: no operation, orientation 2 on an original without one.
    @Test func aFlipIsAnOrientation() throws {
        let plan = try ApplePhotoPlan(
            Self.edit("2F7AF9F2-2930-4A8E-BCC7-D6DB52DAAB0D.plist"), pictureSize: PixelSize(width: 2048, height: 1365))
        #expect(plan.geometry.orientation == .upMirrored && !plan.geometry.cropsOrTurns)
        #expect(plan.geometry.operations() == [])
        // A mirror turns a straighten the other way in the oriented frame.
        var mirrored = plan.geometry
        mirrored.straightenAngle = 0.1
        #expect(mirrored.oriented.angle == -0.1)
    }

    /// A HEIF's picture is already upright (its `irot`), and Photos repeats the file's own
    /// orientation: nothing is left to turn.
    @Test func aHEIFsOwnOrientationIsNotAppliedTwice() throws {
        let size = PixelSize(width: 3024, height: 4032)
        let keyFrame = try ApplePhotoPlan(Self.edit("IMG_1853.AAE"), pictureSize: size, pictureOrientation: .right)
        #expect(keyFrame.geometry.orientation == .up && keyFrame.ignored == ["LivePhotoKeyFrame (video)"])
        #expect(keyFrame.unsupported.isEmpty)
        let smart = try ApplePhotoPlan(
            Self.edit("B60C31AC-BE86-42C5-A383-A0A5710B18AE.plist"), pictureSize: size, pictureOrientation: .right,
            geometryOnly: true)
        #expect(smart.geometry.orientation == .up && smart.unsupported == ["SmartColor", "SmartTone"])
        #expect(smart.geometryOnlyWarning == "geometry only: left out Apple's SmartColor, SmartTone")
        // The same sidecar on a JPEG of the stored size turns it: orientation 6 is the whole story.
        let jpeg = try ApplePhotoPlan(
            Self.edit("B60C31AC-BE86-42C5-A383-A0A5710B18AE.plist"), pictureSize: size, geometryOnly: true)
        #expect(jpeg.geometry.orientation == .right)
    }

    @Test func refusesWhatItCannotReproduceByName() throws {
        let effect = #expect(throws: AdjustmentError.self) {
            try ApplePhotoPlan(
                Self.edit("6191423D-8DB8-4D4C-92BE-9BBBA308AAC4.plist"),
                pictureSize: PixelSize(width: 2047, height: 1365))
        }
        #expect(effect?.code == .appleAdjustmentUnsupported)
        #expect(effect?.message.contains("Effect 3DDramaticCool") == true)
        let depth = #expect(throws: AdjustmentError.self) {
            try ApplePhotoPlan(Self.edit("IMG_3582.AAE"), pictureSize: PixelSize(width: 4284, height: 5712))
        }
        #expect(depth?.message.contains("SmartBlackAndWhite, DepthEffect") == true)
        // A movie's portrait video: master 0×0, nothing for a still.
        let video = try ApplePhotoPlan(Self.edit("IMG_O3932.aae"), pictureSize: PixelSize(width: 100, height: 80))
        #expect(video.ignored == ["PortraitVideo (video)"] && video.geometry.operations().isEmpty)
        let otherSize = #expect(throws: AdjustmentError.self) {
            try ApplePhotoPlan(Self.edit("wedding.AAE"), pictureSize: PixelSize(width: 1367, height: 2048))
        }
        #expect(otherSize?.code == .invalidParameter && otherSize?.message.contains("2048×1367 master") == true)
    }

    // MARK: Unknown adjustments and versions

    static func data(_ adjustments: [String], master: String = "\"masterWidth\":100,\"masterHeight\":80") throws
        -> [UInt8]
    {
        let json =
            "{\"metadata\":{\(master),\"orientation\":1},\"formatVersion\":1,\"adjustments\":["
            + adjustments.joined(separator: ",") + "]}"
        return try RawDeflate.deflate(Array(json.utf8))
    }

    @Test func unknownAdjustmentsAndVersionsAreKeptAndNamed() throws {
        let future = "{\"identifier\":\"HoloTone\",\"settings\":{\"k\":[1,2,{\"x\":\"]\"}]},\"enabled\":true}"
        let crop2 =
            "{\"identifier\":\"Crop\",\"formatVersion\":2,\"settings\":{\"xOrigin\":0,\"yOrigin\":0,\"width\":10,\"height\":10}}"
        let off = "{\"identifier\":\"SmartTone\",\"enabled\":false,\"settings\":{}}"
        let edit = try ApplePhotoFormat.decode(Self.data([future, crop2, off]))
        #expect(edit.adjustments.map { String(decoding: $0.raw, as: UTF8.self) } == [future, crop2, off])
        let plan = try ApplePhotoPlan(edit, pictureSize: PixelSize(width: 100, height: 80), geometryOnly: true)
        #expect(plan.unsupported == ["HoloTone (unknown to darkroom)", "Crop version 2 (unknown to darkroom)"])
        #expect(plan.ignored == ["SmartTone (disabled)"])
        #expect(plan.geometry.window == PixelRect(x: 0, y: 0, width: 100, height: 80))
        let refused = #expect(throws: AdjustmentError.self) {
            try ApplePhotoPlan(edit, pictureSize: PixelSize(width: 100, height: 80))
        }
        #expect(refused?.message.contains("HoloTone (unknown to darkroom), Crop version 2") == true)
    }

    // MARK: Hostile data

    @Test func aDeflateBombIsRefusedAtTheCap() throws {
        let bomb = try RawDeflate.deflate(Array(repeating: UInt8(ascii: " "), count: 32 << 20), level: 9)
        #expect(bomb.count < ApplePhotoFormat.maxDataBytes)
        let error = #expect(throws: AdjustmentError.self) { try ApplePhotoFormat.decode(bomb) }
        #expect(error?.code == .dataTooLarge && error?.message.contains("inflates to more than") == true)
    }

    @Test func tenThousandAdjustmentsAreRefused() throws {
        let many = Array(repeating: "{\"identifier\":\"Crop\"}", count: 10_000)
        let error = #expect(throws: AdjustmentError.self) { try ApplePhotoFormat.decode(Self.data(many)) }
        #expect(error?.code == .dataTooLarge && error?.message.contains("256 adjustments") == true)
    }

    @Test(arguments: [
        ("\"NaN\"", "no number straightenAngle"),
        ("1e999", "straightenAngle"),
        ("100.0", "beyond ±π/4"),
        ("-0.8", "beyond ±π/4"),
    ])
    func nanAndHugeAnglesAreRefused(angle: String, expected: String) throws {
        let crop =
            "{\"identifier\":\"Crop\",\"settings\":{\"xOrigin\":0,\"yOrigin\":0,\"width\":10,\"height\":10,\"straightenAngle\":\(angle)}}"
        let error = #expect(throws: AdjustmentError.self) {
            try ApplePhotoPlan(
                ApplePhotoFormat.decode(Self.data([crop])), pictureSize: PixelSize(width: 100, height: 80))
        }
        #expect(error.map { [.invalidParameter, .malformedData].contains($0.code) } == true)
        #expect(
            error?.message.contains(expected) == true || error?.code == .malformedData, "\(error.map { "\($0)" } ?? "")"
        )
    }

    @Test(arguments: [
        "\"xOrigin\":95,\"yOrigin\":0,\"width\":10,\"height\":10",
        "\"xOrigin\":-1,\"yOrigin\":0,\"width\":10,\"height\":10",
        "\"xOrigin\":0,\"yOrigin\":75,\"width\":10,\"height\":10",
        "\"xOrigin\":0,\"yOrigin\":0,\"width\":0,\"height\":10",
        "\"xOrigin\":0,\"yOrigin\":0,\"width\":1e300,\"height\":10",
    ])
    func cropsOutsideThePictureAreRefused(settings: String) throws {
        let crop = "{\"identifier\":\"Crop\",\"settings\":{\(settings)}}"
        let error = #expect(throws: AdjustmentError.self) {
            try ApplePhotoPlan(
                ApplePhotoFormat.decode(Self.data([crop])), pictureSize: PixelSize(width: 100, height: 80))
        }
        #expect(error?.code == .invalidParameter)
    }
}

/// PhotoKit's rules around Apple's edits: another editor cannot handle `com.apple.photo`, so its
/// edit layers on the Apple render; a new Apple edit replaces the Apple layer.
@Suite struct ApplePhotoRuleTests {
    let registry = EditorRegistry.standard
    let appleLayer = CurrentAdjustment(id: 7, formatIdentifier: "com.apple.photo", formatVersion: "1.4")

    @Test func anotherEditorLayersOnTheAppleRender() {
        #expect(registry.baseImage(forEditIn: "io.darkroom.pipeline", over: appleLayer) == .rendered(adjustmentID: 7))
        #expect(registry.baseImage(forEditIn: "com.apple.photo", over: appleLayer) == .original)
    }

    @Test func readsEvery1xAndWritesNone() throws {
        let editor = try registry.editor(for: "com.apple.photo", version: "1.11")
        #expect(editor.canRead(SemanticVersion("1.9.1")!) && !editor.canRead(SemanticVersion("2.0")!))
        let data = try Fixtures.bytes(of: Fixtures.root.appendingPathComponent("apple/wedding.AAE"))
        let sidecar = try AppleSidecar.decode(data)
        #expect(try editor.upgrade(sidecar.data, from: SemanticVersion("1.4")!) == sidecar.data)
        #expect(!editor.writesItsFormat)
        #expect(throws: AdjustmentError.self) {
            try registry.encode([.sepia(intensity: 1)], identifier: "com.apple.photo")
        }
        let upgraded = try registry.upgrade(identifier: "com.apple.photo", version: "1.4", data: sidecar.data)
        #expect(
            upgraded == EncodedAdjustment(formatIdentifier: "com.apple.photo", formatVersion: "1.4", data: sidecar.data)
        )
    }
}
