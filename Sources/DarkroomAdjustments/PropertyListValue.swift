/// A property-list value, as data. Reading one never creates anything but these values.
public indirect enum PropertyListValue: Sendable, Hashable {
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// Seconds since 2001-01-01 00:00:00 UTC (Core Foundation's reference date).
    case date(Double)
    case data([UInt8])
    case string(String)
    /// A keyed archive's reference to an entry of its `$objects` array.
    case uid(UInt64)
    case array([PropertyListValue])
    case dictionary(PropertyListDictionary)

    /// "a string", "an array", … for error messages.
    public var kind: String {
        switch self {
        case .bool: "a boolean"
        case .integer: "an integer"
        case .real: "a real"
        case .date: "a date"
        case .data: "data"
        case .string: "a string"
        case .uid: "a UID"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }
}

/// A dictionary with string keys that keeps the order it was built in, so written files
/// are deterministic and can follow Foundation's key order. Keys are unique.
public struct PropertyListDictionary: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    public private(set) var keys: [String] = []
    public private(set) var values: [PropertyListValue] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        for (key, value) in elements { self[key] = value }
    }

    /// For readers that have already checked the keys are unique (building through the
    /// subscript would be quadratic in the number of keys).
    init(uniqueKeys keys: [String], values: [PropertyListValue]) {
        precondition(keys.count == values.count)
        self.keys = keys
        self.values = values
    }

    public var count: Int { keys.count }

    /// Lookup is linear: these dictionaries hold a handful of keys.
    public subscript(key: String) -> PropertyListValue? {
        get { keys.firstIndex(of: key).map { values[$0] } }
        set {
            if let index = keys.firstIndex(of: key) {
                if let newValue {
                    values[index] = newValue
                } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    public var entries: Zip2Sequence<[String], [PropertyListValue]> { zip(keys, values) }
}
