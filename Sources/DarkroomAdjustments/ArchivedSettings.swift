/// Reads the settings dictionary at the root of a keyed archive (what PhotoKit sample
/// extensions write with `NSKeyedArchiver.archivedDataWithRootObject(dataDict)`), one
/// key at a time, remembering which keys were used so unknown ones can be refused.
struct ArchivedSettings {
    let format: String
    let fields: [String: ArchivedValue]
    private var used: Set<String> = []

    /// Decodes `data` and requires a dictionary root; errors name the format.
    init(format: String, data: [UInt8]) throws {
        self.format = format
        let root: ArchivedValue
        do {
            root = try KeyedArchive.decode(data)
        } catch let error as AdjustmentError {
            throw AdjustmentError(
                .malformedData, "\(format) data is not a readable NSKeyedArchiver archive: \(error.message)")
        }
        guard case .dictionary(let fields) = root else {
            throw AdjustmentError(
                .malformedData, "\(format) data must archive a dictionary (NSDictionary) of settings, got \(root.kind)")
        }
        self.fields = fields
    }

    /// An NSNumber (integer or real) in `range`; a missing key keeps `fallback`.
    mutating func number(_ key: String, default fallback: Double, in range: ClosedRange<Double>) throws -> Double {
        used.insert(key)
        guard let value = fields[key] else { return fallback }
        guard let number = value.number else {
            throw AdjustmentError(.invalidParameter, "\(format): \"\(key)\" must be a number, got \(value.kind)")
        }
        guard number.isFinite else {
            throw AdjustmentError(.invalidParameter, "\(format): \"\(key)\" must be a finite number, got \(number)")
        }
        try Self.check(number, key: key, in: range, format: format)
        return number
    }

    /// Marks `key` as known; returns its value for the caller to judge.
    mutating func take(_ key: String) -> ArchivedValue? {
        used.insert(key)
        return fields[key]
    }

    func refuseUnknownKeys() throws {
        if let unknown = fields.keys.sorted().first(where: { !used.contains($0) }) {
            let known = used.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw AdjustmentError(
                .invalidParameter, "\(format): unknown key \(unknown.quotedForMessage); the keys are \(known)")
        }
    }

    static func check(_ number: Double, key: String, in range: ClosedRange<Double>, format: String) throws {
        guard range.contains(number) else {
            throw AdjustmentError(
                .invalidParameter,
                "\(format): \"\(key)\" must be between \(range.lowerBound.forMessage) and \(range.upperBound.forMessage), got \(number.forMessage)"
            )
        }
    }
}
