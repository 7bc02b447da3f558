import EditVocabulary

/// darkroom's native adjustment format, `io.darkroom.pipeline`: UTF-8 JSON
/// `{"operations":[{"op":"sepia","intensity":0.8}, ...]}`, applied in order.
/// See docs/adjustment-formats.md for every operation's parameters and math.
public enum PipelineFormat {
    public static let identifier = "io.darkroom.pipeline"
    public static let currentVersion = SemanticVersion(major: 1, minor: 0, patch: 0)
    public static let maxDataBytes = 256 << 10
    /// Each operation is a pass over every pixel (a blur, several): a long list is a render
    /// that never ends, not an edit.
    public static let maxOperations = 64
    /// Arrays and objects nest at most this deep (an edit needs five: the document, its list,
    /// an operation, a matrix and its rows), checked before the JSON parser sees the bytes.
    public static let maxNesting = 8
    /// A filter's name is at most this many UTF-8 bytes.
    public static let maxFilterNameBytes = 64

    public static func decode(_ data: [UInt8]) throws -> [ImageOperation] {
        guard data.count <= maxDataBytes else {
            throw AdjustmentError(
                .dataTooLarge, "\(identifier) data is \(data.count) bytes; the limit is \(maxDataBytes)")
        }
        if let (depth, offset) = JSONValue.nesting(of: data, over: maxNesting) {
            throw AdjustmentError(
                .malformedData,
                "\(identifier) data nests arrays and objects \(depth) deep at byte \(offset); the limit is \(maxNesting)"
            )
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(data)
        } catch {
            throw AdjustmentError(
                .malformedData, "\(identifier) data is not valid JSON; expected {\"operations\":[{\"op\":...}]}")
        }
        guard case .object(let root) = document else {
            throw AdjustmentError(
                .malformedData,
                "\(identifier) data must be a JSON object with an \"operations\" array, got \(document.kind)")
        }
        if let extra = root.keys.sorted().first(where: { $0 != "operations" }) {
            throw AdjustmentError(
                .malformedData, "\(identifier) data has an unknown key \"\(extra)\"; only \"operations\" is allowed")
        }
        guard case .array(let list)? = root["operations"] else {
            throw AdjustmentError(.malformedData, "\(identifier) data needs an \"operations\" array")
        }
        guard list.count <= maxOperations else {
            throw AdjustmentError(
                .dataTooLarge, "\(identifier) data has \(list.count) operations; the limit is \(maxOperations)")
        }
        return try list.enumerated().map { index, entry in try decodeOperation(entry, index: index) }
    }

    static func decodeOperation(_ entry: JSONValue, index: Int) throws -> ImageOperation {
        guard case .object(let fields) = entry else {
            throw AdjustmentError(
                .malformedData, "operation \(index) must be an object like {\"op\":\"sepia\"}, got \(entry.kind)")
        }
        guard case .string(let name)? = fields["op"] else {
            throw AdjustmentError(.malformedData, "operation \(index) has no \"op\" string naming the operation")
        }
        var parameters = Parameters(operation: name, index: index, fields: fields)
        let operation: ImageOperation
        switch name {
        case "sepia":
            operation = .sepia(intensity: try parameters.number("intensity", default: 1, in: 0...1))
        case "vignette":
            operation = .vignette(
                intensity: try parameters.number("intensity", default: 1, in: -1000...1000),
                radius: try parameters.number("radius", default: 1, in: 0...2))
        case "exposure":
            operation = .exposure(ev: try parameters.number("ev", default: 0, in: -20...20))
        case "gaussianBlur":
            operation = .gaussianBlur(sigma: try parameters.number("radius", default: 10, in: 0...100))
        case "unsharpMask":
            operation = .unsharpMask(
                sigma: try parameters.number("radius", default: 2.5, in: 0...100),
                intensity: try parameters.number("intensity", default: 0.5, in: 0...10))
        case "crop":
            operation = .crop(
                PixelRect(
                    x: try parameters.integer("x", default: 0, in: 0...65_535),
                    y: try parameters.integer("y", default: 0, in: 0...65_535),
                    width: try parameters.integer("width", in: 1...65_535),
                    height: try parameters.integer("height", in: 1...65_535)))
        case "rotate":
            operation = try rotation(&parameters)
        case "flip":
            operation = .orient(
                try parameters.choice("axis", of: FlipAxis.self) == .horizontal ? .upMirrored : .downMirrored)
        case "colorControls":
            operation = .colorControls(
                saturation: try parameters.number("saturation", default: 1, in: 0...4),
                brightness: try parameters.number("brightness", default: 0, in: -1...1),
                contrast: try parameters.number("contrast", default: 1, in: 0...4))
        case "colorMatrix":
            operation = .colorMatrix(
                ColorMatrix(
                    rows: try parameters.matrix("matrix", default: ColorMatrix.identity.rows, in: -100...100),
                    offset: try parameters.color("offset", default: .black, in: -100...100)))
        case "posterize":
            operation = .posterize(levels: try parameters.integer("levels", default: 6, in: 2...256))
        case "photoEffect":
            operation = .photoEffect(
                try parameters.choice("effect", of: PhotoEffect.self),
                intensity: try parameters.number("intensity", default: 1, in: 0...1))
        case "chromaKey":
            operation = .chromaKey(
                ChromaKey(
                    key: try parameters.color("key", default: .green, in: 0...1),
                    threshold: try parameters.number("threshold", default: 0.7, in: 0...2),
                    background: try parameters.color("background", default: .black, in: 0...1)))
        case "filter":
            operation = .filter(
                FilterStep(
                    name: try parameters.filterName("name"),
                    version: try parameters.version("version"),
                    intensity: try parameters.number("intensity", default: 1, in: 0...1),
                    sha256: try parameters.sha256("sha256")))
        default:
            throw AdjustmentError(
                .unknownOperation,
                "operation \(index): unknown op \"\(name)\"; known ops are \(knownOperations.joined(separator: ", "))")
        }
        try parameters.refuseUnused()
        return operation
    }

    public static let knownOperations = [
        "chromaKey", "colorControls", "colorMatrix", "crop", "exposure", "filter", "flip", "gaussianBlur",
        "photoEffect", "posterize", "rotate", "sepia", "unsharpMask", "vignette",
    ]

    /// Angles beyond a full turn either way are refused: no editor writes them, and they hide
    /// mistakes (radians for degrees, a stray exponent).
    public static let maxDegrees: Double = 360

    /// `rotate`: whole quarter turns are exact orientations (the same in both modes); any other
    /// angle resamples, cropped to the largest upright rectangle or expanded onto `fill`.
    static func rotation(_ parameters: inout Parameters) throws -> ImageOperation {
        let degrees = try parameters.double("degrees", in: -maxDegrees...maxDegrees)
        let mode = try parameters.choice("mode", of: RotateMode.self, default: .crop)
        let fill = try parameters.color("fill", default: .black, in: 0...1)
        if mode == .crop, parameters.fields["fill"] != nil {
            throw AdjustmentError(
                .invalidParameter,
                "operation \(parameters.index) (rotate): \"fill\" is only used with \"mode\":\"expand\"")
        }
        let quarter = degrees / 90
        if quarter.rounded() == quarter {
            let turns = ((Int(quarter) % 4) + 4) % 4
            return .orient([Orientation.up, .left, .down, .right][turns])
        }
        return .rotate(
            Rotation(
                degrees: degrees, window: mode == .crop ? .largestUpright : .wholeCanvas,
                fill: mode == .crop ? nil : fill))
    }
}

/// `rotate`'s `mode`.
enum RotateMode: String, CaseIterable {
    /// The largest upright rectangle inside the turned image.
    case crop
    /// The whole turned image on a canvas of `fill`.
    case expand
}

/// `flip`'s `axis`: `horizontal` mirrors left and right, `vertical` top and bottom.
enum FlipAxis: String, CaseIterable {
    case horizontal, vertical
}

/// Reads one operation's parameters and remembers which were used, so a misspelt
/// parameter is an error instead of a silently ignored default.
struct Parameters {
    let operation: String
    let index: Int
    let fields: [String: JSONValue]
    private var used: Set<String> = ["op"]

    init(operation: String, index: Int, fields: [String: JSONValue]) {
        self.operation = operation
        self.index = index
        self.fields = fields
    }

    mutating func number(_ name: String, default fallback: Float? = nil, in range: ClosedRange<Float>) throws -> Float {
        used.insert(name)
        guard let value = fields[name] else {
            guard let fallback else {
                throw invalid(name, "is required (a number between \(range.lowerBound) and \(range.upperBound))")
            }
            return fallback
        }
        guard case .number(let number) = value, number.isFinite else {
            throw invalid(name, "must be a number, got \(value.kind)")
        }
        let single = Float(number)
        guard range.contains(single) else {
            throw invalid(
                name,
                "must be between \(format(range.lowerBound)) and \(format(range.upperBound)), got \(format(single))")
        }
        return single
    }

    /// A number kept in double precision (an angle, which the encoder writes back exactly).
    mutating func double(_ name: String, in range: ClosedRange<Double>) throws -> Double {
        used.insert(name)
        guard let value = fields[name] else {
            throw invalid(
                name, "is required (a number between \(range.lowerBound.forMessage) and \(range.upperBound.forMessage))"
            )
        }
        guard case .number(let number) = value, number.isFinite else {
            throw invalid(name, "must be a number, got \(value.kind)")
        }
        guard range.contains(number) else {
            throw invalid(
                name,
                "must be between \(range.lowerBound.forMessage) and \(range.upperBound.forMessage), got \(number.forMessage)"
            )
        }
        return number
    }

    mutating func integer(_ name: String, default fallback: Int? = nil, in range: ClosedRange<Int>) throws -> Int {
        used.insert(name)
        guard let value = fields[name] else {
            guard let fallback else { throw invalid(name, "is required (a whole number of pixels)") }
            return fallback
        }
        guard case .number(let number) = value, number.isFinite, number.rounded() == number else {
            let got = if case .number = value { "a fraction" } else { value.kind }
            throw invalid(name, "must be a whole number, got \(got)")
        }
        guard number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
            throw invalid(name, "must be between \(range.lowerBound) and \(range.upperBound), got \(number.forMessage)")
        }
        return Int(number)
    }

    /// A filter's name: which names may be stored is `darkroom.filters`' rule; here only a
    /// bound, so the name fits a message and a storage key.
    mutating func filterName(_ name: String) throws -> String {
        used.insert(name)
        guard let value = fields[name] else { throw invalid(name, "is required (the name a filter was added under)") }
        guard case .string(let text) = value, (1...PipelineFormat.maxFilterNameBytes).contains(text.utf8.count) else {
            throw invalid(
                name, "must be a string of 1 to \(PipelineFormat.maxFilterNameBytes) bytes, got \(value.kind)")
        }
        return text
    }

    /// An optional semantic version (`darkroom.enqueue_edit` fills in a missing one).
    mutating func version(_ name: String) throws -> String? {
        used.insert(name)
        guard let value = fields[name] else { return nil }
        guard case .string(let text) = value, let version = SemanticVersion(text) else {
            throw invalid(name, "must be a semantic version such as \"1.0.0\", got \(value.kind)")
        }
        return version.text
    }

    /// An optional SHA-256 in lowercase hex (`enqueue_edit` writes the LUT's).
    mutating func sha256(_ name: String) throws -> String? {
        used.insert(name)
        guard let value = fields[name] else { return nil }
        guard case .string(let text) = value, text.utf8.count == 64,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            throw invalid(name, "must be 64 lowercase hexadecimal digits (a SHA-256), got \(value.kind)")
        }
        return text
    }

    /// Three numbers, `[r, g, b]`, each in `range`.
    mutating func color(_ name: String, default fallback: RGBColor, in range: ClosedRange<Float>) throws -> RGBColor {
        used.insert(name)
        guard let value = fields[name] else { return fallback }
        let numbers = try numbers(value, count: 3, name: name, shape: "an array of 3 numbers [r, g, b]", in: range)
        return RGBColor(red: numbers[0], green: numbers[1], blue: numbers[2])
    }

    /// Three rows of three numbers, returned row-major.
    mutating func matrix(_ name: String, default fallback: [Float], in range: ClosedRange<Float>) throws -> [Float] {
        used.insert(name)
        guard let value = fields[name] else { return fallback }
        let shape = "3 rows of 3 numbers, like [[1,0,0],[0,1,0],[0,0,1]]"
        guard case .array(let rows) = value, rows.count == 3 else {
            throw invalid(name, "must be \(shape), got \(describeShape(value))")
        }
        var result: [Float] = []
        for (index, row) in rows.enumerated() {
            result += try numbers(row, count: 3, name: "\(name)[\(index)]", shape: "3 numbers", in: range)
        }
        return result
    }

    /// A string naming one case of `choices`.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(
        _ name: String, of choices: Choice.Type, default fallback: Choice? = nil
    ) throws -> Choice
    where Choice.RawValue == String {
        used.insert(name)
        let known = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        guard let value = fields[name] else {
            guard let fallback else { throw invalid(name, "is required (one of \(known))") }
            return fallback
        }
        guard case .string(let text) = value else {
            throw invalid(name, "must be a string (one of \(known)), got \(value.kind)")
        }
        guard let choice = Choice(rawValue: text) else {
            throw invalid(name, "must be one of \(known), got \"\(text)\"")
        }
        return choice
    }

    private func numbers(_ value: JSONValue, count: Int, name: String, shape: String, in range: ClosedRange<Float>)
        throws -> [Float]
    {
        guard case .array(let entries) = value, entries.count == count else {
            throw invalid(name, "must be \(shape), got \(describeShape(value))")
        }
        return try entries.enumerated().map { index, entry in
            guard case .number(let number) = entry, number.isFinite else {
                throw invalid(name, "element \(index) must be a number, got \(entry.kind)")
            }
            let single = Float(number)
            guard range.contains(single) else {
                throw invalid(
                    name,
                    "element \(index) must be between \(format(range.lowerBound)) and \(format(range.upperBound)), got \(format(single))"
                )
            }
            return single
        }
    }

    private func describeShape(_ value: JSONValue) -> String {
        if case .array(let entries) = value { return "an array of \(entries.count)" }
        return value.kind
    }

    func refuseUnused() throws {
        if let unknown = fields.keys.sorted().first(where: { !used.contains($0) }) {
            let known = used.subtracting(["op"]).sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw AdjustmentError(
                .invalidParameter,
                "operation \(index) (\(operation)): unknown parameter \"\(unknown)\"; it takes \(known.isEmpty ? "no parameters" : known)"
            )
        }
    }

    private func invalid(_ name: String, _ problem: String) -> AdjustmentError {
        AdjustmentError(.invalidParameter, "operation \(index) (\(operation)): parameter \"\(name)\" \(problem)")
    }

    private func format(_ value: Float) -> String {
        value.rounded() == value && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }
}
