import EditVocabulary

/// The settings of ChromaKey, the sample PhotoKit extension whose format is
/// `com.shinobicontrols.chromakey` 1.0: an NSKeyedArchiver archive of an NSDictionary.
///
/// The sample archives `threshold` (a Float) and `activeColor` (a CIColor), but reads the
/// color back from a key named `color` that it never writes, so every edit it makes renders
/// with its default key color, pure green. A CIColor's coded fields are Core Image's private
/// business, so darkroom never interprets one: the key color is three plain NSNumbers,
/// `keyColorRed`, `keyColorGreen`, `keyColorBlue` (sRGB-encoded, 0…1, what
/// `UIColor(red:green:blue:alpha:)` takes), and the background `backgroundRed`/`Green`/`Blue`
/// the same way. An archive that uses only property-list classes can also be read by the
/// extension with `unarchivedObject(ofClasses: [NSDictionary.self, NSNumber.self, NSString.self])`.
/// `activeColor` is accepted when it is an archived CIColor and ignored, exactly as the
/// sample ignores it.
public struct ChromaKeySettings: Sendable, Equatable {
    public var threshold: Double
    public var keyColorRed: Double
    public var keyColorGreen: Double
    public var keyColorBlue: Double
    public var backgroundRed: Double
    public var backgroundGreen: Double
    public var backgroundBlue: Double

    public static let identifier = "com.shinobicontrols.chromakey"
    public static let currentVersion = SemanticVersion("1.0")!
    /// The sample's archive with a CIColor is a few kilobytes (a color space may be coded).
    public static let maxDataBytes = 64 << 10

    /// Linear-light distance; √3 ≈ 1.732 already keys every pixel in [0, 1]³.
    static let thresholdRange: ClosedRange<Double> = 0...2
    static let componentRange: ClosedRange<Double> = 0...1
    static let colorKeys = [
        "keyColorRed", "keyColorGreen", "keyColorBlue", "backgroundRed", "backgroundGreen", "backgroundBlue",
    ]

    public init(
        threshold: Double = 0.7, keyColorRed: Double = 0, keyColorGreen: Double = 1, keyColorBlue: Double = 0,
        backgroundRed: Double = 0, backgroundGreen: Double = 0, backgroundBlue: Double = 0
    ) {
        self.threshold = threshold
        self.keyColorRed = keyColorRed
        self.keyColorGreen = keyColorGreen
        self.keyColorBlue = keyColorBlue
        self.backgroundRed = backgroundRed
        self.backgroundGreen = backgroundGreen
        self.backgroundBlue = backgroundBlue
    }

    public init(archive data: [UInt8]) throws {
        var settings = try ArchivedSettings(format: Self.identifier, data: data)
        let defaults = ChromaKeySettings()
        threshold = try settings.number("threshold", default: defaults.threshold, in: Self.thresholdRange)
        keyColorRed = try settings.number("keyColorRed", default: defaults.keyColorRed, in: Self.componentRange)
        keyColorGreen = try settings.number("keyColorGreen", default: defaults.keyColorGreen, in: Self.componentRange)
        keyColorBlue = try settings.number("keyColorBlue", default: defaults.keyColorBlue, in: Self.componentRange)
        backgroundRed = try settings.number("backgroundRed", default: defaults.backgroundRed, in: Self.componentRange)
        backgroundGreen = try settings.number(
            "backgroundGreen", default: defaults.backgroundGreen, in: Self.componentRange)
        backgroundBlue = try settings.number(
            "backgroundBlue", default: defaults.backgroundBlue, in: Self.componentRange)
        if let active = settings.take("activeColor") {
            guard case .object(let className, _, _) = active, className == "CIColor" else {
                throw AdjustmentError(
                    .invalidParameter,
                    "\(Self.identifier): \"activeColor\" must be an archived CIColor (it is ignored; give the key color as keyColorRed/Green/Blue), got \(active.kind)"
                )
            }
        }
        try settings.refuseUnknownKeys()
    }

    /// The settings that render `operations`: exactly one chromaKey.
    public init(operations: [ImageOperation]) throws {
        guard operations.count == 1, case .chromaKey(let key) = operations[0] else {
            throw AdjustmentError(
                .unrepresentable,
                "\(Self.identifier) can only express [chromaKey], not [\(operations.map(\.name).joined(separator: ", "))]"
            )
        }
        self.init(
            threshold: Double(key.threshold),
            keyColorRed: Double(key.key.red), keyColorGreen: Double(key.key.green), keyColorBlue: Double(key.key.blue),
            backgroundRed: Double(key.background.red), backgroundGreen: Double(key.background.green),
            backgroundBlue: Double(key.background.blue))
        try validate()
    }

    public func validate() throws {
        let format = Self.identifier
        try ArchivedSettings.check(threshold, key: "threshold", in: Self.thresholdRange, format: format)
        for (key, value) in zip(Self.colorKeys, components) {
            try ArchivedSettings.check(value, key: key, in: Self.componentRange, format: format)
        }
    }

    var components: [Double] {
        [keyColorRed, keyColorGreen, keyColorBlue, backgroundRed, backgroundGreen, backgroundBlue]
    }

    /// All seven keys as NSNumbers. `threshold` is written as a 4-byte real when it is a Float
    /// value, as the sample's `Float` property is, so its `as? Float` reads it back exactly.
    public func archive() -> [UInt8] {
        var dictionary: [String: ArchivedValue] = ["threshold": .real(threshold)]
        for (key, value) in zip(Self.colorKeys, components) { dictionary[key] = .real(value) }
        return KeyedArchive.encode(.dictionary(dictionary))
    }

    public var operations: [ImageOperation] {
        [
            .chromaKey(
                ChromaKey(
                    key: RGBColor(red: Float(keyColorRed), green: Float(keyColorGreen), blue: Float(keyColorBlue)),
                    threshold: Float(threshold),
                    background: RGBColor(
                        red: Float(backgroundRed), green: Float(backgroundGreen), blue: Float(backgroundBlue))))
        ]
    }
}

/// `com.shinobicontrols.chromakey`: reads 1.0 (and 1.0.0), writes 1.0.
public struct ChromaKeyEditor: OperationEditor {
    public init() {}
    public var formatIdentifier: String { ChromaKeySettings.identifier }
    public var currentVersion: SemanticVersion { ChromaKeySettings.currentVersion }
    public var maxDataBytes: Int { ChromaKeySettings.maxDataBytes }

    public func canRead(_ version: SemanticVersion) -> Bool {
        version.major == 1 && version <= currentVersion
    }

    public func operations(from data: [UInt8], version: SemanticVersion) throws -> [ImageOperation] {
        try ChromaKeySettings(archive: data).operations
    }

    public func encode(_ operations: [ImageOperation]) throws -> [UInt8] {
        try ChromaKeySettings(operations: operations).archive()
    }

    /// Rewrites the settings in darkroom's form; a sample archive's CIColor is dropped (it
    /// never affected the render).
    public func upgrade(_ data: [UInt8], from version: SemanticVersion) throws -> [UInt8] {
        try ChromaKeySettings(archive: data).archive()
    }
}
