import DarkroomImaging

/// `com.apple.photo` as an editor a worker runs: it reads any 1.x and writes none. Its
/// geometry is relative to the original's picture, so it renders through `ApplePhotoPlan`
/// (which the worker builds once it has read the original's header), never through
/// `operations(from:version:)` alone.
public struct ApplePhotoEditor: Editor {
    public init() {}
    public var formatIdentifier: String { ApplePhotoFormat.identifier }
    /// The newest version Photos was seen writing.
    public var currentVersion: SemanticVersion { SemanticVersion(major: 1, minor: 11, patch: 0) }
    public var maxDataBytes: Int { ApplePhotoFormat.maxDataBytes }

    /// Every 1.x: the JSON inside names each adjustment's own version, and the plan refuses
    /// by name what it does not know.
    public func canRead(_ version: SemanticVersion) -> Bool { version.major == 1 }

    public func operations(from data: [UInt8], version: SemanticVersion) throws -> [ImageOperation] {
        _ = try ApplePhotoFormat.decode(data)
        throw AdjustmentError(
            .unrepresentable,
            "\(formatIdentifier) geometry is relative to the original's picture: render it through ApplePhotoPlan")
    }

    public func encode(_ operations: [ImageOperation]) throws -> [UInt8] {
        throw AdjustmentError(.unrepresentable, "darkroom reads \(formatIdentifier) but never writes it")
    }

    /// Apple's data is never rewritten: checked, and kept byte for byte.
    public func upgrade(_ data: [UInt8], from version: SemanticVersion) throws -> [UInt8] {
        _ = try ApplePhotoFormat.decode(data)
        return data
    }
}
