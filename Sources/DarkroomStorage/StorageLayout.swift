/// Where everything lives, as keys relative to the storage. The one place that knows the
/// layout: the importer, the worker, the orphan cleanup and every backend ask it.
///
///     originals/ab/ab12…ef.jpg            imported originals, named by SHA-256 (never modified);
///                                         .heic, .avif or .heif for HEIF originals
///     renders/<asset>/<job>.jpg           one render per job
///     renders/<asset>/<job>.display.jpg   its display-size copy (the built-in rendition)
///     renders/<asset>/<job>.<name>.webp   its other renditions (.jpg, .webp or .avif)
///     renders/<asset>/<job>.layerN.jpg    lower layers of a chain a revert or re-render replayed
///     renders/<asset>/imported-<sha>.heic a render imported with its original (Apple's), as it is
///     filters/ab/ab12…ef.cube             filter LUTs, named by SHA-256 (never modified)
///     tmp/                                spill files of running renders (local scratch)
public enum StorageLayout {
    public static let originalsFolder = "originals"
    public static let rendersFolder = "renders"
    public static let scratchFolder = "tmp"
    public static let filtersFolder = "filters"
    /// The top-level folders a storage holds.
    public static let folders = [originalsFolder, rendersFolder, filtersFolder, scratchFolder]

    /// Content-addressed: the same photo always has the same key, whatever its file name. The
    /// extension says the format the importer found in the content ("jpg", "heic", "avif", "heif").
    public static func original(sha256 digest: String, fileExtension: String = "jpg") -> StorageKey {
        StorageKey(trusted: "\(originalsFolder)/\(digest.prefix(2))/\(digest).\(fileExtension)")
    }

    /// A filter version's `.cube` LUT, content-addressed like an original: two versions with
    /// the same bytes share one object, and a key always names the same bytes.
    public static func filter(sha256 digest: String) -> StorageKey {
        StorageKey(trusted: "\(filtersFolder)/\(digest.prefix(2))/\(digest).cube")
    }

    /// One render per job, so retries of a job replace their own output and never another job's.
    public static func render(assetID: Int64, jobID: Int64) -> StorageKey {
        StorageKey(trusted: "\(rendersFolder)/\(assetID)/\(jobID).jpg")
    }

    /// The display-size copy (PhotoKit's displaySizeImage) beside each render: the built-in rendition.
    public static func display(assetID: Int64, jobID: Int64) -> StorageKey {
        rendition(assetID: assetID, jobID: jobID, name: "display", fileExtension: "jpg")!
    }

    /// A rendition beside a job's render; nil for a name or extension that could not be one
    /// (the names SQL allows: 1-32 of a-z, 0-9, - and _; jpg, webp or avif).
    public static func rendition(assetID: Int64, jobID: Int64, name: String, fileExtension: String) -> StorageKey? {
        guard isRenditionName(name[...]), renditionExtensions.contains(fileExtension) else { return nil }
        return StorageKey(trusted: "\(rendersFolder)/\(assetID)/\(jobID).\(name).\(fileExtension)")
    }

    static let renditionExtensions: Set<String> = ["jpg", "webp", "avif"]

    /// `darkroom.renditions`' rule for a name, which is part of a file name here ("layerN" is a layer's).
    static func isRenditionName(_ name: Substring) -> Bool {
        guard (1...32).contains(name.count), let first = name.first, first.isASCII, first.isLowercase || first.isNumber,
            !(name.hasPrefix("layer") && decimal(name.dropFirst(5)) != nil)
        else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// A lower layer of a replayed chain (`layer` counts from 1 at the bottom); only the top
    /// layer, the job's own render, gets a display copy.
    public static func layer(assetID: Int64, jobID: Int64, layer: Int) -> StorageKey {
        StorageKey(trusted: "\(rendersFolder)/\(assetID)/\(jobID).layer\(layer).jpg")
    }

    /// A render that arrived with its original (Apple's own render of an Apple Photos edit),
    /// stored as it is: named by its content, with the extension of its format.
    public static func importedRender(assetID: Int64, sha256 digest: String, fileExtension: String) -> StorageKey {
        StorageKey(trusted: "\(rendersFolder)/\(assetID)/imported-\(digest).\(fileExtension)")
    }

    /// What a render key names: which job wrote it, and as what.
    public struct RenderOutput: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            case render
            /// A rendition, by its name ("display" for the display copy).
            case rendition(String)
            case layer(Int)
        }

        public var assetID: Int64
        public var jobID: Int64
        public var kind: Kind

        public init(assetID: Int64, jobID: Int64, kind: Kind) {
            self.assetID = assetID
            self.jobID = jobID
            self.kind = kind
        }
    }

    /// Parses a key the layout built for a job's output; nil for anything else (which the orphan
    /// cleanup then leaves alone).
    public static func renderOutput(_ key: StorageKey) -> RenderOutput? {
        let parts = key.rawValue.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == rendersFolder, let assetID = decimal(parts[1]) else { return nil }
        var stem = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        guard stem.count >= 2, let fileExtension = stem.popLast(), let jobID = decimal(stem[0]) else { return nil }
        guard fileExtension == "jpg" else {
            guard stem.count == 2, renditionExtensions.contains(String(fileExtension)), isRenditionName(stem[1]) else {
                return nil
            }
            return RenderOutput(assetID: assetID, jobID: jobID, kind: .rendition(String(stem[1])))
        }
        switch stem.count {
        case 1:
            return RenderOutput(assetID: assetID, jobID: jobID, kind: .render)
        case 2 where stem[1].hasPrefix("layer") && decimal(stem[1].dropFirst(5)) != nil:
            guard let layer = decimal(stem[1].dropFirst(5)), layer > 0 else { return nil }
            return RenderOutput(assetID: assetID, jobID: jobID, kind: .layer(Int(layer)))
        case 2 where isRenditionName(stem[1]):
            return RenderOutput(assetID: assetID, jobID: jobID, kind: .rendition(String(stem[1])))
        default:
            return nil
        }
    }

    private static func decimal(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text)
    }
}
