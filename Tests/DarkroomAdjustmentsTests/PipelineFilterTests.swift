import DarkroomAdjustments
import DarkroomImaging
import Testing

/// The filter operation of `io.darkroom.pipeline`: what it reads and what it writes back, with
/// the suite's own `decode` and `refusal`.
extension PipelineFormatTests {
    @Test func readsNameVersionAndIntensity() throws {
        #expect(
            try decode(#"{"operations":[{"op":"filter","name":"dusk","version":"1.0.0","intensity":0.8}]}"#)
                == [.filter(FilterStep(name: "dusk", version: "1.0.0", intensity: 0.8))])
        // Intensity defaults to 1; a missing version is left for enqueue_edit to fill in.
        #expect(
            try decode(#"{"operations":[{"op":"filter","name":"dusk"}]}"#) == [
                .filter(FilterStep(name: "dusk", version: nil))
            ])
        #expect(
            try decode(#"{"operations":[{"op":"filter","name":"dusk","version":"2.1"}]}"#) == [
                .filter(FilterStep(name: "dusk", version: "2.1"))
            ])
    }

    @Test(arguments: [
        (#"{"op":"filter"}"#, #"parameter "name" is required"#),
        (#"{"op":"filter","name":""}"#, #"parameter "name" must be a string of 1 to 64 bytes"#),
        (#"{"op":"filter","name":7}"#, #"parameter "name" must be a string of 1 to 64 bytes, got a number"#),
        (#"{"op":"filter","name":"d","version":"v1"}"#, #"parameter "version" must be a semantic version"#),
        (#"{"op":"filter","name":"d","version":1}"#, #"parameter "version" must be a semantic version"#),
        (#"{"op":"filter","name":"d","intensity":1.5}"#, #"parameter "intensity" must be between 0 and 1"#),
        (#"{"op":"filter","name":"d","lut":"x.cube"}"#, #"unknown parameter "lut""#),
    ])
    func refusals(operation: String, expected: String) {
        #expect(refusal(#"{"operations":["# + operation + "]}").contains(expected))
    }

    @Test func encodesWhatItReads() throws {
        let operations: [ImageOperation] = [
            .filter(FilterStep(name: "dusk \"night\"\\\u{1}", version: "1.2.0-rc.1", intensity: 0.25)),
            .filter(FilterStep(name: "plain", version: nil)), .sepia(intensity: 1),
        ]
        let data = try PipelineFormat.encode(operations)
        #expect(try PipelineFormat.decode(data) == operations)
        #expect(
            String(decoding: data, as: UTF8.self).hasPrefix(
                #"{"operations":[{"op":"filter","name":"dusk \"night\"\\\u0001","version":"1.2.0-rc.1","intensity":0.25}"#
            ))
    }
}
