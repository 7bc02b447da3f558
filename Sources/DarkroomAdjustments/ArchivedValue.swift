/// What an `NSKeyedArchiver` archive holds, decoded as data: Foundation's property-list
/// classes become these cases, and an object of any other class stays a class name and its
/// coded fields. Nothing is ever instantiated from an archive.
public indirect enum ArchivedValue: Sendable, Hashable {
    /// `$null`, the archive's nil (UID 0).
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    case data([UInt8])
    /// NSArray / NSMutableArray.
    case array([ArchivedValue])
    /// NSDictionary / NSMutableDictionary with string keys.
    case dictionary([String: ArchivedValue])
    /// Any other class, with its fields as data. `classes` is the class and its superclasses as
    /// `$classes` lists them (just the class when the archive lists none).
    case object(className: String, classes: [String], fields: [String: ArchivedValue])

    public var kind: String {
        switch self {
        case .null: "nil"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .real: "a real number"
        case .string: "a string"
        case .data: "data"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .object(let className, _, _): "an archived \(className.prefix(40))"
        }
    }

    /// Integers and reals both, as NSNumber holds either.
    public var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }
}

extension String {
    /// The string in quotes for a message, cut to 40 characters: keys come from untrusted
    /// data, and a path built from long keys must not grow with every level.
    var quotedForMessage: String {
        count <= 40 ? "\"\(self)\"" : "\"\(prefix(40))…\""
    }
}

extension Double {
    /// The number for a message: whole numbers without a fraction, others (and any too large
    /// for an integer, which data can hold) as Swift prints them.
    var forMessage: String {
        rounded() == self && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}
