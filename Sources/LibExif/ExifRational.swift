/// An unsigned EXIF RATIONAL exactly as stored; the denominator may be zero in real files.
public struct ExifRational: Sendable, Hashable, CustomStringConvertible {
    public var numerator: UInt32
    public var denominator: UInt32

    public init(_ numerator: UInt32, _ denominator: UInt32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// `nil` when the denominator is zero, because such a value has no meaning.
    public var doubleValue: Double? {
        denominator == 0 ? nil : Double(numerator) / Double(denominator)
    }

    public var description: String { "\(numerator)/\(denominator)" }
}

/// A signed EXIF SRATIONAL exactly as stored.
public struct ExifSignedRational: Sendable, Hashable, CustomStringConvertible {
    public var numerator: Int32
    public var denominator: Int32

    public init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    public var doubleValue: Double? {
        denominator == 0 ? nil : Double(numerator) / Double(denominator)
    }

    public var description: String { "\(numerator)/\(denominator)" }
}
