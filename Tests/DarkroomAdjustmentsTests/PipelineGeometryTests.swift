import DarkroomAdjustments
import DarkroomImaging
import Testing

/// `rotate` and `flip` in `io.darkroom.pipeline`.
@Suite struct PipelineGeometryTests {
    func decode(_ json: String) throws -> [ImageOperation] {
        try PipelineFormat.decode(Array(json.utf8))
    }

    func refusal(_ json: String) -> (code: String, message: String) {
        do {
            _ = try decode(json)
            return ("accepted", "")
        } catch let error as AdjustmentError {
            return (error.code.rawValue, error.message)
        } catch {
            return ("\(type(of: error))", "\(error)")
        }
    }

    @Test func rotateAndFlipDecode() throws {
        let operations = try decode(
            """
            {"operations":[{"op":"rotate","degrees":2.5},{"op":"rotate","degrees":-30,"mode":"expand"},
                           {"op":"rotate","degrees":12,"mode":"expand","fill":[1,1,1]},
                           {"op":"flip","axis":"horizontal"},{"op":"flip","axis":"vertical"}]}
            """)
        #expect(
            operations == [
                .rotate(Rotation(degrees: 2.5, window: .largestUpright)),
                .rotate(Rotation(degrees: -30, window: .wholeCanvas, fill: .black)),
                .rotate(Rotation(degrees: 12, window: .wholeCanvas, fill: RGBColor(red: 1, green: 1, blue: 1))),
                .orient(.upMirrored), .orient(.downMirrored),
            ])
    }

    /// Whole quarter turns are exact orientations, whatever the mode.
    @Test func quarterTurnsAreOrientations() throws {
        let cases: [(Double, Orientation)] = [
            (0, .up), (90, .left), (-90, .right), (180, .down), (-180, .down), (270, .right), (-270, .left), (360, .up),
        ]
        for (degrees, orientation) in cases {
            for mode in ["crop", "expand"] {
                let json = #"{"operations":[{"op":"rotate","degrees":\#(degrees),"mode":"\#(mode)"}]}"#
                #expect(try decode(json) == [.orient(orientation)], "\(degrees)° \(mode)")
            }
        }
    }

    @Test(arguments: [
        (#"{"op":"rotate"}"#, "invalid_parameter", #"parameter "degrees" is required"#),
        (#"{"op":"rotate","degrees":1e400}"#, "malformed_adjustment_data", "not valid JSON"),
        (#"{"op":"rotate","degrees":"NaN"}"#, "invalid_parameter", #"parameter "degrees" must be a number"#),
        (#"{"op":"rotate","degrees":null}"#, "invalid_parameter", #"parameter "degrees" must be a number"#),
        (#"{"op":"rotate","degrees":361}"#, "invalid_parameter", "must be between -360 and 360, got 361"),
        (#"{"op":"rotate","degrees":-1e12}"#, "invalid_parameter", "must be between -360 and 360"),
        (#"{"op":"rotate","degrees":3,"mode":"fit"}"#, "invalid_parameter", #"must be one of "crop", "expand""#),
        (#"{"op":"rotate","degrees":3,"fill":[1,1,1]}"#, "invalid_parameter", #""fill" is only used with"#),
        (#"{"op":"rotate","degrees":3,"mode":"expand","fill":[2,0,0]}"#, "invalid_parameter", "between 0 and 1"),
        (#"{"op":"rotate","degrees":3,"angle":3}"#, "invalid_parameter", #"unknown parameter "angle""#),
        (#"{"op":"flip"}"#, "invalid_parameter", #"parameter "axis" is required"#),
        (#"{"op":"flip","axis":"diagonal"}"#, "invalid_parameter", #"must be one of "horizontal", "vertical""#),
    ])
    func badGeometryIsRefused(operation: String, code: String, message: String) {
        let refused = refusal(#"{"operations":["# + operation + "]}")
        #expect(refused.code == code)
        #expect(refused.message.contains(message), "\(refused.message)")
    }

    @Test func geometryEncodesAndReadsBack() throws {
        let operations: [ImageOperation] = [
            .crop(PixelRect(x: 1, y: 2, width: 300, height: 200)),
            .rotate(Rotation(degrees: -1.0599, window: .largestUpright)),
            .rotate(Rotation(degrees: 30.25, window: .wholeCanvas, fill: RGBColor(red: 0.5, green: 0.25, blue: 1))),
            .orient(.left), .orient(.right), .orient(.down), .orient(.up), .orient(.upMirrored), .orient(.downMirrored),
        ]
        let data = try PipelineFormat.encode(operations)
        #expect(try PipelineFormat.decode(data) == operations)
        for unrepresentable: ImageOperation in [
            .orient(.leftMirrored),
            .rotate(Rotation(degrees: 3, window: .rect(PixelRect(x: 0, y: 0, width: 5, height: 5)))),
            .rotate(Rotation(degrees: 3, window: .wholeCanvas)),
        ] {
            #expect(throws: AdjustmentError.self) { try PipelineFormat.encode([unrepresentable]) }
        }
    }
}
