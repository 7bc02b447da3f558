/// The version of each operation's math: raised by hand, by one, whenever a change to darkroom
/// changes what that operation renders (a vignette's falloff, a rounding fix). Each adjustment
/// record stores the versions of the operations it used (`RenderProvenance`), so
/// `darkroom rerender --stale` finds exactly the renders an upgrade changed.
/// `Tests/DarkroomImagingTests/RenderMathTests.swift` holds every operation's golden output and
/// fails when one changes while its version here stays the same.
public enum RenderMath {
    /// An exhaustive switch, so a new operation cannot be added without a version.
    public static func version(_ kind: ImageOperation.Kind) -> Int {
        switch kind {
        case .chromaKey: 1
        case .colorControls: 1
        case .colorMatrix: 1
        case .crop: 1
        case .exposure: 1
        case .filter: 2
        case .gaussianBlur: 1
        case .orient: 1
        case .photoEffect: 1
        case .posterize: 1
        case .rotate: 2
        case .sepia: 1
        case .unsharpMask: 1
        case .vignette: 1
        }
    }

    /// Every operation's version, by name.
    public static let versions: [String: Int] = Dictionary(
        uniqueKeysWithValues: ImageOperation.Kind.allCases.map { ($0.rawValue, version($0)) })

    /// The versions of the operations `operations` uses, by name.
    public static func versions(of operations: [ImageOperation]) -> [String: Int] {
        var used: [String: Int] = [:]
        for operation in operations { used[operation.name] = version(operation.kind) }
        return used
    }
}
