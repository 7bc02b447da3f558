import EditVocabulary

/// The settings of Filtster, the sample PhotoKit extension whose format is
/// `com.shinobicontrols.filster` 1.0: an NSKeyedArchiver archive of an NSDictionary with
/// `vignetteIntensity`, `vignetteRadius` and `sepiaIntensity` (NSNumbers; a missing key keeps
/// its default). It renders vignette(radius, intensity), then sepia(intensity).
public struct FiltsterSettings: Sendable, Equatable {
    public var vignetteIntensity: Double
    public var vignetteRadius: Double
    public var sepiaIntensity: Double

    public static let identifier = "com.shinobicontrols.filster"
    /// The sample extension writes and accepts exactly "1.0"; darkroom prints it that way too.
    public static let currentVersion = SemanticVersion("1.0")!
    /// Its archives are about 400 bytes; the limit leaves room without inviting abuse.
    public static let maxDataBytes = 64 << 10

    static let vignetteIntensityRange: ClosedRange<Double> = -1000...1000
    static let vignetteRadiusRange: ClosedRange<Double> = 0...2
    static let sepiaIntensityRange: ClosedRange<Double> = 0...1

    public init(vignetteIntensity: Double = 1.0, vignetteRadius: Double = 0.5, sepiaIntensity: Double = 1.0) {
        self.vignetteIntensity = vignetteIntensity
        self.vignetteRadius = vignetteRadius
        self.sepiaIntensity = sepiaIntensity
    }

    /// Reads an archive as data. Keys other than the three are refused (the sample ignores
    /// them, but a misspelt key must not silently become a default here).
    public init(archive data: [UInt8]) throws {
        var settings = try ArchivedSettings(format: Self.identifier, data: data)
        let defaults = FiltsterSettings()
        vignetteIntensity = try settings.number(
            "vignetteIntensity", default: defaults.vignetteIntensity, in: Self.vignetteIntensityRange)
        vignetteRadius = try settings.number(
            "vignetteRadius", default: defaults.vignetteRadius, in: Self.vignetteRadiusRange)
        sepiaIntensity = try settings.number(
            "sepiaIntensity", default: defaults.sepiaIntensity, in: Self.sepiaIntensityRange)
        try settings.refuseUnknownKeys()
    }

    /// The settings that render `operations`, which must be exactly a vignette then a sepia
    /// (the only pipeline Filtster has).
    public init(operations: [ImageOperation]) throws {
        guard operations.count == 2, case .vignette(let intensity, let radius) = operations[0],
            case .sepia(let sepia) = operations[1]
        else {
            throw AdjustmentError(
                .unrepresentable,
                "\(Self.identifier) can only express [vignette, sepia], not [\(operations.map(\.name).joined(separator: ", "))]"
            )
        }
        self.init(vignetteIntensity: Double(intensity), vignetteRadius: Double(radius), sepiaIntensity: Double(sepia))
        try validate()
    }

    /// Every value inside the ranges the reader accepts.
    public func validate() throws {
        let format = Self.identifier
        try ArchivedSettings.check(
            vignetteIntensity, key: "vignetteIntensity", in: Self.vignetteIntensityRange, format: format)
        try ArchivedSettings.check(vignetteRadius, key: "vignetteRadius", in: Self.vignetteRadiusRange, format: format)
        try ArchivedSettings.check(sepiaIntensity, key: "sepiaIntensity", in: Self.sepiaIntensityRange, format: format)
    }

    /// The archive the extension's `encodeFilterParameters()` would write: all three keys,
    /// as NSNumber doubles, in an NSDictionary.
    public func archive() -> [UInt8] {
        KeyedArchive.encode(
            .dictionary([
                "vignetteIntensity": .real(vignetteIntensity),
                "vignetteRadius": .real(vignetteRadius),
                "sepiaIntensity": .real(sepiaIntensity),
            ]))
    }

    public var operations: [ImageOperation] {
        [
            .vignette(intensity: Float(vignetteIntensity), radius: Float(vignetteRadius)),
            .sepia(intensity: Float(sepiaIntensity)),
        ]
    }
}

/// `com.shinobicontrols.filster`: reads 1.0 (and 1.0.0), writes 1.0.
public struct FiltsterEditor: OperationEditor {
    public init() {}
    public var formatIdentifier: String { FiltsterSettings.identifier }
    public var currentVersion: SemanticVersion { FiltsterSettings.currentVersion }
    public var maxDataBytes: Int { FiltsterSettings.maxDataBytes }

    /// Only 1.0 exists; a later 1.x may add settings this worker would not know.
    public func canRead(_ version: SemanticVersion) -> Bool {
        version.major == 1 && version <= currentVersion
    }

    public func operations(from data: [UInt8], version: SemanticVersion) throws -> [ImageOperation] {
        try FiltsterSettings(archive: data).operations
    }

    public func encode(_ operations: [ImageOperation]) throws -> [UInt8] {
        try FiltsterSettings(operations: operations).archive()
    }

    /// Through the settings rather than the operations, so the doubles are kept exactly.
    public func upgrade(_ data: [UInt8], from version: SemanticVersion) throws -> [UInt8] {
        try FiltsterSettings(archive: data).archive()
    }
}
