/// Apple's naming of an export, read from one folder's listing: which files beside an original
/// belong to it. A pure decision, any case: `IMG_1234.HEIC` has its edit in `IMG_1234.AAE`,
/// the original's own adjustments (from the camera) in `IMG_O1234.AAE`, and Photos' render of
/// the edit in `IMG_E1234.JPG` or `.HEIC`; osxphotos names a render `NAME_edited.jpeg`.
public struct AppleExportFiles: Sendable, Equatable {
    public var original: String
    public var sidecar: String?
    public var originalSidecar: String?
    public var render: String?

    /// The formats an import reads; a render or an original is one of these.
    static let photoExtensions: Set<String> = ["jpg", "jpeg", "heic", "heif", "avif"]

    public init(original: String, sidecar: String? = nil, originalSidecar: String? = nil, render: String? = nil) {
        self.original = original
        self.sidecar = sidecar
        self.originalSidecar = originalSidecar
        self.render = render
    }

    /// The files of `names` (one folder) that belong to `original`.
    public static func find(for original: String, among names: [String]) -> AppleExportFiles {
        let (stem, _) = split(original)
        var files = AppleExportFiles(original: original)
        let lettered = letteredStems(stem)
        for name in names.sorted() where name != original {
            let (other, ext) = split(name)
            if ext == "aae" {
                if other == stem.lowercased() { files.sidecar = files.sidecar ?? name }
                if let lettered, other == lettered.original { files.originalSidecar = files.originalSidecar ?? name }
            } else if photoExtensions.contains(ext) {
                if other == lettered?.edited || other == stem.lowercased() + "_edited" {
                    files.render = files.render ?? name
                }
            }
        }
        return files
    }

    /// The originals among `names` (one folder): its photos, less the sidecars and the renders of
    /// another photo there.
    public static func originals(among names: [String]) -> [String] {
        let photos = names.filter { photoExtensions.contains(split($0).ext) }
        let renders = Set(photos.compactMap { find(for: $0, among: names).render })
        return photos.filter { !renders.contains($0) }.sorted()
    }

    /// (stem lowercased, extension lowercased); the stem keeps its case when asked for as `original`.
    static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name.lowercased(), "") }
        return (String(name[..<dot]).lowercased(), String(name[name.index(after: dot)...]).lowercased())
    }

    /// `img_1234` → (`img_e1234`, `img_o1234`): the letter goes before the number after the last
    /// underscore, as Photos names them. Nil for a stem without that shape.
    static func letteredStems(_ stem: String) -> (edited: String, original: String)? {
        let lower = stem.lowercased()
        guard let underscore = lower.lastIndex(of: "_") else { return nil }
        let prefix = lower[...underscore]
        let number = lower[lower.index(after: underscore)...]
        guard !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber) else { return nil }
        return (prefix + "e" + number, prefix + "o" + number)
    }
}
