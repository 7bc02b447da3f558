import EditVocabulary

extension PipelineFormat {
    /// `operations` as `io.darkroom.pipeline` JSON: one operation per object, every
    /// parameter written out (no reliance on defaults), keys in a fixed order.
    /// The result is decoded again before it is returned, so what this writes is always
    /// data this format reads back to exactly `operations`; parameters outside the
    /// documented ranges are refused with the decoder's message.
    public static func encode(_ operations: [ImageOperation]) throws -> [UInt8] {
        let body = try operations.map(json).joined(separator: ",")
        let data = Array(#"{"operations":["#.utf8) + Array(body.utf8) + Array("]}".utf8)
        let decoded = try decode(data)
        guard decoded == operations else {
            // Only possible if a parameter does not survive the JSON number round trip.
            throw AdjustmentError(
                .malformedData, "\(identifier): encoding \(operations.map(\.name)) did not read back identically")
        }
        return data
    }

    static func json(_ operation: ImageOperation) throws -> String {
        let fields: [(String, String)]
        var name = operation.name
        switch operation {
        case .exposure(let ev):
            fields = [("ev", number(ev))]
        case .sepia(let intensity):
            fields = [("intensity", number(intensity))]
        case .vignette(let intensity, let radius):
            fields = [("intensity", number(intensity)), ("radius", number(radius))]
        case .crop(let rect):
            fields = [("x", "\(rect.x)"), ("y", "\(rect.y)"), ("width", "\(rect.width)"), ("height", "\(rect.height)")]
        case .rotate(let rotation):
            switch (rotation.window, rotation.fill) {
            case (.largestUpright, nil):
                fields = [("degrees", "\(rotation.degrees)"), ("mode", "\"crop\"")]
            case (.wholeCanvas, let fill?):
                fields = [("degrees", "\(rotation.degrees)"), ("mode", "\"expand\""), ("fill", color(fill))]
            default:
                throw unrepresentable("a rotation keeping a given window, or expanding without a fill")
            }
        case .orient(let orientation):
            switch orientation {
            case .up, .left, .down, .right:
                name = "rotate"
                let degrees = [Orientation.up: 0, .left: 90, .down: 180, .right: -90][orientation]!
                fields = [("degrees", "\(degrees)")]
            case .upMirrored, .downMirrored:
                name = "flip"
                fields = [("axis", orientation == .upMirrored ? "\"horizontal\"" : "\"vertical\"")]
            case .leftMirrored, .rightMirrored:
                throw unrepresentable("orientation \(orientation.rawValue) (a flip and a quarter turn in one)")
            }
        case .colorControls(let saturation, let brightness, let contrast):
            fields = [
                ("saturation", number(saturation)), ("brightness", number(brightness)), ("contrast", number(contrast)),
            ]
        case .colorMatrix(let matrix):
            let rows = (0..<3).map { row in
                "[" + matrix.rows[(row * 3)..<(row * 3 + 3)].map(number).joined(separator: ",") + "]"
            }
            fields = [("matrix", "[" + rows.joined(separator: ",") + "]"), ("offset", color(matrix.offset))]
        case .posterize(let levels):
            fields = [("levels", "\(levels)")]
        case .photoEffect(let effect, let intensity):
            fields = [("effect", "\"\(effect.rawValue)\""), ("intensity", number(intensity))]
        case .chromaKey(let key):
            fields = [
                ("key", color(key.key)), ("threshold", number(key.threshold)), ("background", color(key.background)),
            ]
        case .gaussianBlur(let sigma):
            fields = [("radius", number(sigma))]
        case .unsharpMask(let sigma, let intensity):
            fields = [("radius", number(sigma)), ("intensity", number(intensity))]
        case .filter(let step):
            fields =
                [("name", string(step.name))] + (step.version.map { [("version", string($0))] } ?? [])
                + [("intensity", number(step.intensity))] + (step.sha256.map { [("sha256", string($0))] } ?? [])
        }
        return "{\"op\":\"\(name)\"" + fields.map { ",\"\($0)\":\($1)" }.joined() + "}"
    }

    static func unrepresentable(_ what: String) -> AdjustmentError {
        AdjustmentError(
            .unrepresentable, "\(identifier) has no operation for \(what); write it as separate operations")
    }

    static func string(_ text: String) -> String { JSONText.quoted(text) }

    static func color(_ color: RGBColor) -> String {
        "[\(number(color.red)),\(number(color.green)),\(number(color.blue))]"
    }

    /// The shortest decimal that reads back (through JSON's double) as the same Float;
    /// whole numbers without a fraction. Non-finite values cannot be written in JSON and are
    /// refused later by the read-back (they are outside every range).
    static func number(_ value: Float) -> String {
        guard value.isFinite else { return "null" }
        if value.rounded() == value, abs(value) < 1e7 { return String(Int(value)) }
        let short = "\(value)"
        if let reread = Double(short), Float(reread) == value { return short }
        return "\(Double(value))"
    }
}
