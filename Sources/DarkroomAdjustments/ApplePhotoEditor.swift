import EditVocabulary

/// `com.apple.photo` as an editor a worker runs: it reads any 1.x and writes none. Its
/// geometry is relative to the picture it was made on, so its plan is `ApplePhotoPlan` on
/// that picture, refusing by name what darkroom cannot reproduce.
public struct ApplePhotoEditor: Editor {
    public init() {}
    public var formatIdentifier: String { ApplePhotoFormat.identifier }
    /// The newest version Photos was seen writing.
    public var currentVersion: SemanticVersion { SemanticVersion(major: 1, minor: 11, patch: 0) }
    public var maxDataBytes: Int { ApplePhotoFormat.maxDataBytes }
    public var writesItsFormat: Bool { false }

    /// Every 1.x: the JSON inside names each adjustment's own version, and the plan refuses
    /// by name what it does not know.
    public func canRead(_ version: SemanticVersion) -> Bool { version.major == 1 }

    /// Photos' crop and straighten on `picture` (whose `decoderTurn` is the orientation Photos
    /// saw a HEIF's master in), shown in Photos' own orientation.
    public func plan(_ adjustment: EncodedAdjustment, version: SemanticVersion, picture: Picture, options: EditOptions)
        throws -> EditPlan
    {
        let plan = try ApplePhotoPlan(
            ApplePhotoFormat.decode(adjustment.data), pictureSize: picture.size,
            pictureOrientation: picture.decoderTurn, geometryOnly: options.leaveOutUnsupported)
        return EditPlan(
            operations: plan.geometry.operations(), orientation: plan.geometry.orientation,
            warnings: plan.geometryOnlyWarning.map { [EditWarning(code: EditWarning.appleGeometryOnly, message: $0)] }
                ?? [],
            record: adjustment)
    }

    /// Apple's data is never rewritten: checked, and kept byte for byte.
    public func upgrade(_ data: [UInt8], from version: SemanticVersion) throws -> [UInt8] {
        _ = try ApplePhotoFormat.decode(data)
        return data
    }
}
