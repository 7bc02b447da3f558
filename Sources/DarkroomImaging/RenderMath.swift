/// The version of each operation's math: raised by hand, by one, whenever a change to darkroom
/// changes what that operation renders (a vignette's falloff, a rounding fix). Each adjustment
/// record stores the versions of the operations it used (`RenderProvenance`), so
/// `darkroom rerender --stale` finds exactly the renders an upgrade changed.
/// `Tests/DarkroomImagingTests/RenderMathTests.swift` holds every operation's golden output and
/// fails when one changes while its version here stays the same.
public enum RenderMath {
    public static let versions: [String: Int] = [
        "chromaKey": 1,
        "colorControls": 1,
        "colorMatrix": 1,
        "crop": 1,
        "exposure": 1,
        "filter": 2,
        "gaussianBlur": 1,
        "photoEffect": 1,
        "posterize": 1,
        "sepia": 1,
        "unsharpMask": 1,
        "vignette": 1,
    ]

    /// The versions of the operations `operations` uses, by name.
    public static func versions(of operations: [ImageOperation]) -> [String: Int] {
        var used: [String: Int] = [:]
        for operation in operations { used[operation.name] = versions[operation.name] ?? 0 }
        return used
    }
}
