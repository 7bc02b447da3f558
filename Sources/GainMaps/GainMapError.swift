/// Gain-map bytes darkroom could not read: which structure (the MPF index, the gain-map XMP,
/// ISO 21496-1 metadata, Apple's MakerNote, the JPEG markers around them), why, and where.
/// A gain map is optional: whoever meets this error renders the photo in standard range and
/// records the error as a warning. Code decides on `code`, never on `message`.
public struct GainMapError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        /// The bytes end before the structure does.
        case cut = "gain_map_cut"
        /// Bytes or text that are not the structure (a wrong signature, an unreadable number).
        case malformed = "gain_map_malformed"
        /// A version or feature darkroom does not read (hdrgm:Version other than 1.0, an ISO
        /// 21496-1 minimum_version above 0 or its backward direction, a `tmap` box version above 0).
        case unsupported = "gain_map_unsupported"
        /// Values that contradict each other or the format: a minimum above its maximum, NaN,
        /// a zero denominator, a gamma of 0, equal headrooms, an offset outside the file.
        case inconsistent = "gain_map_inconsistent"
        /// More than darkroom reads: absurd counts or sizes.
        case tooLarge = "gain_map_too_large"
    }

    /// The structure being read.
    public enum Structure: String, Sendable, CaseIterable {
        case mpfIndex = "MPF index"
        case xmp = "gain-map XMP"
        case iso21496 = "ISO 21496-1 gain-map metadata"
        case appleMakerNote = "Apple MakerNote"
        case jpeg = "JPEG markers"
    }

    public var code: Code
    public var structure: Structure
    public var message: String
    /// Where in the structure's bytes reading stopped, when known.
    public var byteOffset: Int?

    public init(_ code: Code, _ structure: Structure, _ message: String, at byteOffset: Int? = nil) {
        self.code = code
        self.structure = structure
        self.message = message
        self.byteOffset = byteOffset
    }

    public var description: String {
        var text = "\(structure.rawValue): \(message)"
        if let byteOffset { text += " (at byte \(byteOffset))" }
        return text + "; the photo can still render in standard range, without its gain map"
    }
}
