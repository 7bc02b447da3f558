import DarkroomAdjustments
import DarkroomImaging
import Testing

@Suite struct PipelineColorOperationTests {
    func decode(_ json: String) throws -> [ImageOperation] {
        try PipelineFormat.decode(Array(json.utf8))
    }

    func message(_ json: String) -> String {
        refusal { _ = try decode(json) }
    }

    @Test func defaults() throws {
        let operations = try decode(
            """
            {"operations":[{"op":"colorControls"},{"op":"colorMatrix"},{"op":"posterize"},
                           {"op":"photoEffect","effect":"noir"},{"op":"chromaKey"}]}
            """)
        #expect(
            operations == [
                .colorControls(saturation: 1, brightness: 0, contrast: 1), .colorMatrix(.identity),
                .posterize(levels: 6),
                .photoEffect(.noir, intensity: 1),
                .chromaKey(ChromaKey(key: .green, threshold: 0.7, background: .black)),
            ])
    }

    @Test func parameters() throws {
        let operations = try decode(
            """
            {"operations":[
              {"op":"colorControls","saturation":1.5,"brightness":-0.1,"contrast":1.2},
              {"op":"colorMatrix","matrix":[[0.5,0.25,0],[0,1,0],[0.1,0.2,0.3]],"offset":[0.01,0,-0.02]},
              {"op":"posterize","levels":256},
              {"op":"photoEffect","effect":"transfer","intensity":0.5},
              {"op":"chromaKey","key":[0,0,1],"threshold":0.25,"background":[1,1,1]}]}
            """)
        #expect(
            operations == [
                .colorControls(saturation: 1.5, brightness: -0.1, contrast: 1.2),
                .colorMatrix(
                    ColorMatrix(
                        rows: [0.5, 0.25, 0, 0, 1, 0, 0.1, 0.2, 0.3], offset: RGBColor(red: 0.01, green: 0, blue: -0.02)
                    )),
                .posterize(levels: 256),
                .photoEffect(.transfer, intensity: 0.5),
                .chromaKey(ChromaKey(key: RGBColor(red: 0, green: 0, blue: 1), threshold: 0.25, background: .grey(1))),
            ])
        for effect in PhotoEffect.allCases {
            #expect(
                try decode(#"{"operations":[{"op":"photoEffect","effect":"\#(effect.rawValue)"}]}"#) == [
                    .photoEffect(effect, intensity: 1)
                ])
        }
    }

    @Test(arguments: [
        (
            #"{"op":"posterize","levels":1}"#,
            #"operation 0 (posterize): parameter "levels" must be between 2 and 256, got 1"#
        ),
        (#"{"op":"posterize","levels":6.5}"#, #"parameter "levels" must be a whole number"#),
        (#"{"op":"colorControls","saturation":5}"#, #"parameter "saturation" must be between 0 and 4, got 5"#),
        (
            #"{"op":"colorControls","contrst":1}"#,
            #"unknown parameter "contrst"; it takes "brightness", "contrast", "saturation""#
        ),
        (
            #"{"op":"photoEffect"}"#,
            #"parameter "effect" is required (one of "mono", "noir", "tonal", "chrome", "fade", "instant", "process", "transfer")"#
        ),
        (#"{"op":"photoEffect","effect":"sepia"}"#, #"parameter "effect" must be one of "mono", "#),
        (#"{"op":"photoEffect","effect":3}"#, #"parameter "effect" must be a string"#),
        (
            #"{"op":"photoEffect","effect":"mono","intensity":2}"#,
            #"parameter "intensity" must be between 0 and 1, got 2"#
        ),
        (
            #"{"op":"colorMatrix","matrix":[[1,0],[0,1]]}"#,
            #"parameter "matrix" must be 3 rows of 3 numbers, like [[1,0,0],[0,1,0],[0,0,1]], got an array of 2"#
        ),
        (
            #"{"op":"colorMatrix","matrix":[[1,0,0],[0,1],[0,0,1]]}"#,
            #"parameter "matrix[1]" must be 3 numbers, got an array of 2"#
        ),
        (
            #"{"op":"colorMatrix","matrix":[[1,0,0],[0,"1",0],[0,0,1]]}"#,
            #"parameter "matrix[1]" element 1 must be a number, got a string"#
        ),
        (
            #"{"op":"colorMatrix","matrix":[[1,0,0],[0,1,0],[0,0,101]]}"#,
            #"parameter "matrix[2]" element 2 must be between -100 and 100, got 101"#
        ),
        (
            #"{"op":"colorMatrix","offset":0.1}"#,
            #"parameter "offset" must be an array of 3 numbers [r, g, b], got a number"#
        ),
        (#"{"op":"chromaKey","key":[0,1.5,0]}"#, #"parameter "key" element 1 must be between 0 and 1, got 1.5"#),
        (#"{"op":"chromaKey","threshold":3}"#, #"parameter "threshold" must be between 0 and 2, got 3"#),
        (
            #"{"op":"chromaKey","background":"black"}"#,
            #"parameter "background" must be an array of 3 numbers [r, g, b], got a string"#
        ),
    ])
    func refusals(operation: String, expected: String) {
        let text = message(#"{"operations":[\#(operation)]}"#)
        #expect(text.contains(expected), "\(text)")
    }

    @Test func encodeRoundTripsEveryOperation() throws {
        let operations: [ImageOperation] = [
            .exposure(ev: -1.5), .sepia(intensity: 0.8), .vignette(intensity: 20, radius: 0.3),
            .crop(PixelRect(x: 1, y: 2, width: 30, height: 40)),
            .colorControls(saturation: 1.1, brightness: 0.05, contrast: 0.9),
            .colorMatrix(
                ColorMatrix(
                    rows: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
                    offset: RGBColor(red: -0.1, green: 0, blue: 0.1))),
            .posterize(levels: 17), .photoEffect(.fade, intensity: 0.3),
            .chromaKey(
                ChromaKey(key: RGBColor(red: 0.1, green: 0.9, blue: 0.2), threshold: 0.45, background: .grey(0.5))),
            .gaussianBlur(sigma: 2.5), .unsharpMask(sigma: 1.5, intensity: 0.7),
            .exposure(ev: 0.1 + 0.2),  // a Float whose shortest decimal needs care
        ]
        let data = try PipelineFormat.encode(operations)
        #expect(try PipelineFormat.decode(data) == operations)
        #expect(
            try PipelineFormat.encode([.sepia(intensity: 1), .posterize(levels: 4)])
                == Array(#"{"operations":[{"op":"sepia","intensity":1},{"op":"posterize","levels":4}]}"#.utf8))
        #expect(try PipelineFormat.encode([]) == Array(#"{"operations":[]}"#.utf8))
    }

    @Test func encodeRefusesWhatDecodeWouldRefuse() {
        #expect(
            refusal(code: .invalidParameter) { _ = try PipelineFormat.encode([.posterize(levels: 1)]) }
                .contains(#"parameter "levels" must be between 2 and 256, got 1"#))
        #expect(
            refusal(code: .invalidParameter) { _ = try PipelineFormat.encode([.exposure(ev: .infinity)]) }
                .contains(#"parameter "ev" must be a number, got null"#))
    }
}
