import DarkroomAdjustments
import DarkroomImaging
import Testing

@Suite struct PipelineFormatTests {
    func decode(_ json: String) throws -> [ImageOperation] {
        try PipelineFormat.decode(Array(json.utf8))
    }

    /// The error message for `json`, which must be refused.
    func refusal(_ json: String) -> String {
        do {
            _ = try decode(json)
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    @Test func operationsWithDefaultsAndParameters() throws {
        let operations = try decode(
            """
            {"operations":[{"op":"sepia"},{"op":"vignette","intensity":20,"radius":0.5},
                           {"op":"exposure","ev":-1.5},{"op":"crop","x":10,"y":20,"width":30,"height":40},
                           {"op":"vignette","intensity":-0.5}]}
            """)
        #expect(
            operations == [
                .sepia(intensity: 1), .vignette(intensity: 20, radius: 0.5), .exposure(ev: -1.5),
                .crop(PixelRect(x: 10, y: 20, width: 30, height: 40)), .vignette(intensity: -0.5, radius: 1),
            ])
        #expect(try decode(#"{"operations":[]}"#).isEmpty)
    }

    @Test(arguments: [
        (#"{"operations":[{"op":"swirl"}]}"#, #"operation 0: unknown op "swirl""#),
        (
            #"{"operations":[{"op":"sepia","intensity":1.5}]}"#,
            #"operation 0 (sepia): parameter "intensity" must be between 0 and 1, got 1.5"#
        ),
        (
            #"{"operations":[{"op":"sepia"},{"op":"vignette","radius":3.5}]}"#,
            #"operation 1 (vignette): parameter "radius" must be between 0 and 2, got 3.5"#
        ),
        (
            #"{"operations":[{"op":"sepia","intesity":0.5}]}"#,
            #"operation 0 (sepia): unknown parameter "intesity"; it takes "intensity""#
        ),
        (#"{"operations":[{"op":"exposure","ev":"bright"}]}"#, #"parameter "ev" must be a number, got a string"#),
        (#"{"operations":[{"op":"crop","x":0,"y":0,"width":10}]}"#, #"parameter "height" is required"#),
        (
            #"{"operations":[{"op":"crop","x":0.5,"y":0,"width":10,"height":10}]}"#,
            #"parameter "x" must be a whole number"#
        ),
        // Found by fuzz-pipeline: formatting a whole number beyond Int for this message trapped.
        (
            #"{"operations":[{"op":"crop","width":8e33,"height":10}]}"#,
            #"parameter "width" must be between 1 and 65535, got 8e+33"#
        ),
        (#"{"operations":[{"op":"exposure","ev":true}]}"#, #"parameter "ev" must be a number, got a boolean"#),
        (#"{"operations":[{"intensity":1}]}"#, #"operation 0 has no "op""#),
        (#"{"operations":{"op":"sepia"}}"#, #"needs an "operations" array"#),
        (#"{"operations":[],"extra":1}"#, #"unknown key "extra""#),
        (#"[1,2]"#, "must be a JSON object"),
        ("not json", "is not valid JSON"),
        ("", "is not valid JSON"),
    ])
    func refusalsNameTheOperationAndParameter(json: String, expected: String) {
        let message = refusal(json)
        #expect(message.contains(expected), "\(message)")
    }

    @Test func oversizeDataIsRefused() {
        let big = #"{"operations":["# + String(repeating: #"{"op":"sepia"},"#, count: 20_000) + #"{"op":"sepia"}]}"#
        #expect(refusal(big).contains("limit is 262144"))
    }

    @Test func registryResolvesVersions() throws {
        let registry = EditorRegistry.standard
        #expect(
            try registry.operations(
                identifier: "io.darkroom.pipeline", version: "1.0.0", data: Array(#"{"operations":[]}"#.utf8)
            ).isEmpty)
        #expect(try registry.editor(for: "io.darkroom.pipeline", version: "1.0").currentVersion.text == "1.0.0")
        #expect(throws: AdjustmentError.self) { try registry.editor(for: "io.darkroom.pipeline", version: "2.0.0") }
        #expect(throws: AdjustmentError.self) { try registry.editor(for: "io.darkroom.pipeline", version: "1.1.0") }
        #expect(throws: AdjustmentError.self) { try registry.editor(for: "com.example.unknown", version: "1.0.0") }
        #expect(throws: AdjustmentError.self) { try registry.editor(for: "io.darkroom.pipeline", version: "banana") }
    }
}

@Suite struct SemanticVersionTests {
    @Test(arguments: [
        "1.0.0", "1.0", "0.0.1", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7",
        "1.0.0-x.7.z.92", "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85", "2.1.0-rc-1",
    ])
    func valid(_ text: String) throws {
        let version = try #require(SemanticVersion(text))
        #expect(version.description == text)
    }

    @Test(arguments: [
        "", "1", "1.0.0.0", "01.0.0", "1.02.0", "v1.0.0", "1.0.0-", "1.0.0+", "1.0.0-01",
        "1..0", "1.0.0-a..b", " 1.0.0", "1.0.0 ", "-1.0.0", "1.0.0-ä",
    ])
    func invalid(_ text: String) {
        #expect(SemanticVersion(text) == nil)
    }

    @Test func precedenceFollowsSemverDotOrg() {
        let ordered = [
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
            "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0",
        ].map { SemanticVersion($0)! }
        for (lower, higher) in zip(ordered, ordered.dropFirst()) {
            #expect(lower < higher, "\(lower) < \(higher)")
            #expect(!(higher < lower))
        }
        #expect(SemanticVersion("1.0")! == SemanticVersion("1.0.0")!)
        #expect(SemanticVersion("1.0.0+a")! == SemanticVersion("1.0.0+b")!)
    }
}
