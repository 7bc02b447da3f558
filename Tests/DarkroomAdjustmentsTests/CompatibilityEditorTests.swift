import DarkroomImaging
import Testing

@testable import DarkroomAdjustments

/// The refusal message for `body`, or "accepted".
func refusal(code expected: AdjustmentError.Code? = nil, _ body: () throws -> Void) -> String {
    do {
        try body()
        return "accepted"
    } catch let error as AdjustmentError {
        if let expected, error.code != expected { return "wrong code \(error.code): \(error.message)" }
        return error.message
    } catch {
        return "unexpected \(error)"
    }
}

@Suite struct FiltsterEditorTests {
    let editor = FiltsterEditor()
    let version = SemanticVersion("1.0")!

    func archive(_ settings: [String: ArchivedValue]) -> [UInt8] {
        KeyedArchive.encode(.dictionary(settings))
    }

    @Test func rendersVignetteThenSepia() throws {
        let data = archive([
            "vignetteIntensity": .real(2.5), "vignetteRadius": .real(0.75), "sepiaIntensity": .real(0.25),
        ])
        #expect(
            try editor.operations(from: data, version: version) == [
                .vignette(intensity: 2.5, radius: 0.75), .sepia(intensity: 0.25),
            ])
    }

    @Test func missingKeysKeepTheirDefaults() throws {
        #expect(
            try editor.operations(from: archive([:]), version: version) == [
                .vignette(intensity: 1, radius: 0.5), .sepia(intensity: 1),
            ])
        #expect(
            try FiltsterSettings(archive: archive(["sepiaIntensity": .integer(0)]))
                == FiltsterSettings(sepiaIntensity: 0))
    }

    @Test func badSettingsNameTheKey() {
        let format = "com.shinobicontrols.filster"
        #expect(
            refusal(code: .invalidParameter) {
                _ = try FiltsterSettings(archive: archive(["vignetteRadius": .string("wide")]))
            }
                == #"\#(format): "vignetteRadius" must be a number, got a string"#)
        #expect(
            refusal(code: .invalidParameter) {
                _ = try FiltsterSettings(archive: archive(["sepiaIntensity": .bool(true)]))
            }
                == #"\#(format): "sepiaIntensity" must be a number, got a boolean"#)
        #expect(
            refusal(code: .invalidParameter) {
                _ = try FiltsterSettings(archive: archive(["vignetteRadius": .real(3.5)]))
            }
                == #"\#(format): "vignetteRadius" must be between 0 and 2, got 3.5"#)
        #expect(
            refusal(code: .invalidParameter) {
                _ = try FiltsterSettings(archive: archive(["vignetteIntensity": .real(.nan)]))
            }
            .contains("must be a finite number"))
        #expect(
            refusal(code: .invalidParameter) {
                _ = try FiltsterSettings(archive: archive(["vignetteRaduis": .real(1)]))
            }
                == #"\#(format): unknown key "vignetteRaduis"; the keys are "sepiaIntensity", "vignetteIntensity", "vignetteRadius""#
        )
    }

    @Test func longKeysAreCutInMessages() {
        let key = String(repeating: "x", count: 5000)
        let text = refusal(code: .invalidParameter) { _ = try FiltsterSettings(archive: archive([key: .real(1)])) }
        #expect(
            text.hasPrefix(
                #"com.shinobicontrols.filster: unknown key "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"; the keys are"#))
        #expect(text.count < 200)
    }

    @Test func dataThatIsNotASettingsArchive() {
        #expect(
            refusal(code: .malformedData) { _ = try FiltsterSettings(archive: KeyedArchive.encode(.array([.real(1)]))) }
                .contains("must archive a dictionary (NSDictionary) of settings, got an array"))
        #expect(
            refusal(code: .malformedData) { _ = try FiltsterSettings(archive: Array(#"{"sepiaIntensity":1}"#.utf8)) }
                .hasPrefix(
                    "com.shinobicontrols.filster data is not a readable NSKeyedArchiver archive: binary plist does not start with"
                ))
    }

    @Test func encodesOnlyVignetteThenSepia() throws {
        let operations: [ImageOperation] = [.vignette(intensity: 3, radius: 0.25), .sepia(intensity: 0.5)]
        let data = try editor.encode(operations)
        #expect(try editor.operations(from: data, version: version) == operations)
        #expect(
            refusal(code: .unrepresentable) { _ = try editor.encode([.sepia(intensity: 1)]) }
                == "com.shinobicontrols.filster can only express [vignette, sepia], not [sepia]")
        #expect(
            refusal(code: .unrepresentable) {
                _ = try editor.encode([.sepia(intensity: 1), .vignette(intensity: 1, radius: 1)])
            }
            .contains("not [sepia, vignette]"))
        #expect(
            refusal(code: .invalidParameter) {
                _ = try editor.encode([.vignette(intensity: 1, radius: 5), .sepia(intensity: 1)])
            }
            .contains(#""vignetteRadius" must be between 0 and 2, got 5"#))
    }

    @Test func upgradeKeepsTheDoublesExactly() throws {
        // 0.1 is not a Float; going through the Float operations would change it.
        let data = archive(["vignetteIntensity": .real(0.1), "sepiaIntensity": .real(0.3)])
        let upgraded = try editor.upgrade(data, from: version)
        #expect(
            try FiltsterSettings(archive: upgraded)
                == FiltsterSettings(vignetteIntensity: 0.1, vignetteRadius: 0.5, sepiaIntensity: 0.3))
        // Every key is written out, so the extension sees the same values whatever its defaults.
        #expect(
            try KeyedArchive.decode(upgraded)
                == .dictionary([
                    "vignetteIntensity": .real(0.1), "vignetteRadius": .real(0.5), "sepiaIntensity": .real(0.3),
                ]))
    }

    @Test(arguments: [
        ("1.0", true), ("1.0.0", true), ("1.0.0-beta", true), ("1.0.1", false), ("1.1", false), ("2.0", false),
        ("0.9", false),
    ])
    func readableVersions(_ text: String, _ readable: Bool) {
        #expect(editor.canRead(SemanticVersion(text)!) == readable)
    }
}

@Suite struct ChromaKeyEditorTests {
    let editor = ChromaKeyEditor()
    let version = SemanticVersion("1.0")!

    func archive(_ settings: [String: ArchivedValue]) -> [UInt8] {
        KeyedArchive.encode(.dictionary(settings))
    }

    @Test func defaultsArePureGreenAtPointSevenOnBlack() throws {
        #expect(
            try editor.operations(from: archive([:]), version: version) == [
                .chromaKey(ChromaKey(key: .green, threshold: 0.7, background: .black))
            ])
    }

    @Test func documentedKeys() throws {
        let data = archive([
            "threshold": .real(0.25), "keyColorRed": .real(0.5), "keyColorGreen": .integer(0), "keyColorBlue": .real(1),
            "backgroundRed": .integer(1), "backgroundGreen": .real(0.5), "backgroundBlue": .real(0.25),
        ])
        #expect(
            try editor.operations(from: data, version: version) == [
                .chromaKey(
                    ChromaKey(
                        key: RGBColor(red: 0.5, green: 0, blue: 1), threshold: 0.25,
                        background: RGBColor(red: 1, green: 0.5, blue: 0.25)))
            ])
    }

    @Test func theSamplesArchivedCIColorIsIgnored() throws {
        let color = ArchivedValue.object(
            className: "CIColor", classes: ["CIColor", "NSObject"], fields: ["anything": .string("0 0 1 1")])
        let data = archive(["activeColor": color, "threshold": .real(0.5)])
        #expect(
            try editor.operations(from: data, version: version) == [.chromaKey(ChromaKey(key: .green, threshold: 0.5))])
        #expect(
            refusal(code: .invalidParameter) { _ = try ChromaKeySettings(archive: archive(["activeColor": .real(1)])) }
                .contains(#""activeColor" must be an archived CIColor"#))
        let other = ArchivedValue.object(className: "UIColor", classes: [], fields: [:])
        #expect(
            refusal(code: .invalidParameter) { _ = try ChromaKeySettings(archive: archive(["activeColor": other])) }
                .contains("got an archived UIColor"))
        // The key the sample reads but never writes is not guessed at.
        #expect(
            refusal(code: .invalidParameter) { _ = try ChromaKeySettings(archive: archive(["color": color])) }
                .contains(#"unknown key "color""#))
    }

    @Test func rangesAreChecked() {
        #expect(
            refusal(code: .invalidParameter) { _ = try ChromaKeySettings(archive: archive(["threshold": .real(2.5)])) }
                == #"com.shinobicontrols.chromakey: "threshold" must be between 0 and 2, got 2.5"#)
        #expect(
            refusal(code: .invalidParameter) {
                _ = try ChromaKeySettings(archive: archive(["keyColorBlue": .real(-0.1)]))
            }
                == #"com.shinobicontrols.chromakey: "keyColorBlue" must be between 0 and 1, got -0.1"#)
    }

    @Test func encodesOneChromaKeyWithAFloatThreshold() throws {
        let operation = ImageOperation.chromaKey(
            ChromaKey(key: RGBColor(red: 0.2, green: 0.3, blue: 0.4), threshold: 0.7, background: .grey(1)))
        let data = try editor.encode([operation])
        #expect(try editor.operations(from: data, version: version) == [operation])
        // The threshold goes out as a 4-byte real (22 + the Float's bits), as the sample's Float did.
        let float: [UInt8] = [0x22] + bigEndian(UInt64(Float(0.7).bitPattern), size: 4)
        #expect((0...(data.count - 5)).contains { Array(data[$0..<($0 + 5)]) == float })
        #expect(
            refusal(code: .unrepresentable) { _ = try editor.encode([operation, operation]) }
                == "com.shinobicontrols.chromakey can only express [chromaKey], not [chromaKey, chromaKey]")
    }

    @Test func upgradeDropsTheIgnoredColor() throws {
        let color = ArchivedValue.object(className: "CIColor", classes: ["CIColor", "NSObject"], fields: [:])
        let upgraded = try editor.upgrade(archive(["activeColor": color, "threshold": .real(0.5)]), from: version)
        #expect(
            try KeyedArchive.decode(upgraded)
                == .dictionary([
                    "threshold": .real(0.5), "keyColorRed": .real(0), "keyColorGreen": .real(1),
                    "keyColorBlue": .real(0),
                    "backgroundRed": .real(0), "backgroundGreen": .real(0), "backgroundBlue": .real(0),
                ]))
    }
}

@Suite struct EditorRegistryTests {
    let registry = EditorRegistry.standard

    @Test func standardRegistryKnowsAllFourFormats() throws {
        #expect(
            registry.editors.keys.sorted() == [
                "com.apple.photo", "com.shinobicontrols.chromakey", "com.shinobicontrols.filster",
                "io.darkroom.pipeline",
            ])
        let filtster = FiltsterSettings(vignetteIntensity: 2, vignetteRadius: 1, sepiaIntensity: 0.5).archive()
        #expect(
            try registry.operations(identifier: "com.shinobicontrols.filster", version: "1.0", data: filtster)
                == [.vignette(intensity: 2, radius: 1), .sepia(intensity: 0.5)])
        #expect(
            try registry.operations(
                identifier: "com.shinobicontrols.chromakey", version: "1.0.0", data: ChromaKeySettings().archive())
                == [.chromaKey(ChromaKey())])
    }

    @Test func versionsAndSizesAreEnforced() {
        let data = FiltsterSettings().archive()
        #expect(
            refusal(code: .unsupportedVersion) {
                _ = try registry.operations(identifier: "com.shinobicontrols.filster", version: "1.1", data: data)
            }
                == "com.shinobicontrols.filster version 1.1 is not readable by this worker (it writes 1.0)")
        #expect(
            refusal(code: .unsupportedVersion) {
                _ = try registry.editor(for: "com.shinobicontrols.chromakey", version: "2.0")
            }
            .contains("not readable"))
        let huge = [UInt8](repeating: 0, count: 65_537)
        #expect(
            refusal(code: .dataTooLarge) {
                _ = try registry.operations(identifier: "com.shinobicontrols.filster", version: "1.0", data: huge)
            }
                == "com.shinobicontrols.filster data is 65537 bytes; the limit is 65536")
        #expect(
            refusal(code: .dataTooLarge) {
                _ = try registry.upgrade(identifier: "com.shinobicontrols.chromakey", version: "1.0", data: huge)
            }
            .contains("the limit is 65536"))
    }

    @Test func encodeWritesTheCurrentVersion() throws {
        let filtster = try registry.encode(
            [.vignette(intensity: 1, radius: 0.5), .sepia(intensity: 1)], identifier: "com.shinobicontrols.filster")
        #expect(filtster.formatVersion == "1.0")
        #expect(try FiltsterSettings(archive: filtster.data) == FiltsterSettings())
        let pipeline = try registry.encode([.sepia(intensity: 0.5)], identifier: "io.darkroom.pipeline")
        #expect(
            pipeline
                == EncodedAdjustment(
                    formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
                    data: Array(#"{"operations":[{"op":"sepia","intensity":0.5}]}"#.utf8)))
        #expect(
            refusal(code: .unknownFormat) { _ = try registry.encode([], identifier: "com.example.nothing") }.contains(
                "no editor"))
    }

    @Test func upgradeRewritesForTheCurrentVersion() throws {
        // The pipeline keeps the author's JSON byte for byte; 1.0 data is reported as 1.0.0.
        let json = Array(#"{ "operations": [ {"op": "sepia"} ] }"#.utf8)
        #expect(
            try registry.upgrade(identifier: "io.darkroom.pipeline", version: "1.0", data: json)
                == EncodedAdjustment(formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0", data: json))
        #expect(
            refusal(code: .unknownOperation) {
                _ = try registry.upgrade(
                    identifier: "io.darkroom.pipeline", version: "1.0.0",
                    data: Array(#"{"operations":[{"op":"swirl"}]}"#.utf8))
            }.contains("unknown op \"swirl\""))
        let sample = KeyedArchive.encode(.dictionary(["sepiaIntensity": .real(0.5)]))
        let upgraded = try registry.upgrade(identifier: "com.shinobicontrols.filster", version: "1.0.0", data: sample)
        #expect(upgraded.formatVersion == "1.0")
        #expect(try FiltsterSettings(archive: upgraded.data) == FiltsterSettings(sepiaIntensity: 0.5))
    }
}
