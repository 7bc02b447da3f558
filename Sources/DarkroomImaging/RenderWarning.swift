import JPEGTurbo

/// Something a render met that did not spoil its pixels. Workers record these on the job and
/// on the adjustment it wrote; `code` is stable, for operators to query.
public enum RenderWarning: Sendable, Hashable, CustomStringConvertible {
    /// The input, `object`, is irregular in a harmless way (a JPEG without its EOI marker,
    /// bytes after it), as its decoder told it.
    case input(InputWarning, object: String)
    /// The original's EXIF could not be rewritten for the output, which carries none.
    case exifNotCopied(reason: String)
    /// The original's EXIF is larger than a JPEG's APP1 segment: the render carries what fits,
    /// without what `reason` names (the thumbnail and MakerNote first).
    case exifShortened(reason: String)
    /// The original's colours are described by nclx alone and no equivalent ICC profile could
    /// be built: the render carries none, so viewers read it as sRGB.
    case colorProfileNotEmbedded(reason: String)
    /// A CMYK or YCCK original's ICC profile could not convert its pixels (unreadable, not a CMYK
    /// profile, no transform): they were converted by Adobe's naive formula instead, so the
    /// colours are approximate. The render is sRGB and says so.
    case cmykProfileNotUsed(reason: String)
    /// The original's HDR gain map could not be carried (missing, cut off, of an absurd size,
    /// inconsistent with its metadata, too large for the budget): the render is standard range.
    case gainMapDropped(reason: String)
    /// A `--color srgb` rendition's pixels could not be converted (the render's profile cannot
    /// be read as RGB): it keeps the render's colours and profile.
    case renditionNotConverted(rendition: String, reason: String)
    /// A rendition's format carries less metadata than the render has: `reason` says what it
    /// left out (a WebP's EXIF, then its colour profile).
    case renditionMetadataLeftOut(rendition: String, reason: String)
    /// A rendition that keeps HDR does not carry the render's gain map (the render and its other
    /// renditions do): `reason` says why.
    case renditionGainMapLeftOut(rendition: String, reason: String)

    public var code: String {
        switch self {
        case .input(let warning, _): warning.code
        case .exifNotCopied: "exif.not_copied"
        case .exifShortened: "exif.shortened"
        case .colorProfileNotEmbedded: "colour.profile_not_embedded"
        case .cmykProfileNotUsed: "colour.cmyk_profile_not_used"
        case .gainMapDropped: "gain_map.dropped"
        case .renditionNotConverted: "rendition.colour_not_converted"
        case .renditionMetadataLeftOut: "rendition.metadata_left_out"
        case .renditionGainMapLeftOut: "rendition.gain_map_left_out"
        }
    }

    public var message: String {
        switch self {
        case .input(let warning, _): warning.message
        case .exifNotCopied(let reason): "EXIF not copied to the render: \(reason)"
        case .exifShortened(let reason):
            "the original's EXIF is larger than a JPEG's APP1 segment, so the render carries it without \(reason)"
        case .colorProfileNotEmbedded(let reason):
            "no ICC profile embedded for the original's nclx colours, so viewers will read the render as sRGB: \(reason)"
        case .cmykProfileNotUsed(let reason):
            "the CMYK original's ICC profile could not convert its colours, so they were converted without it "
                + "(Adobe's naive formula: approximate): \(reason)"
        case .gainMapDropped(let reason):
            "the original's HDR gain map was not carried, so the render is standard range only: \(reason)"
        case .renditionNotConverted(let rendition, let reason):
            "rendition \(rendition) was not converted to sRGB, so it keeps the render's colour profile: \(reason)"
        case .renditionMetadataLeftOut(let rendition, let reason):
            "rendition \(rendition) carries less metadata than the render: \(reason)"
        case .renditionGainMapLeftOut(let rendition, let reason):
            "rendition \(rendition) is standard range only, though the render carries its HDR gain map: \(reason)"
        }
    }

    /// The object the warning is about, when it is a file.
    public var object: String? {
        if case .input(_, let object) = self { return object }
        return nil
    }

    public var byteOffset: Int? {
        if case .input(let warning, _) = self { return warning.byteOffset }
        return nil
    }

    public var byteCount: Int? {
        if case .input(let warning, _) = self { return warning.byteCount }
        return nil
    }

    public var description: String {
        "\(code): " + (object.map { "\($0): " } ?? "") + message
    }
}

/// What a decoder met in an input without spoiling its pixels: a stable code (`jpeg.missing_eoi`,
/// `icc.unreadable`, …), what it means, and where, told in imaging's terms, not the codec's.
public struct InputWarning: Sendable, Hashable, CustomStringConvertible {
    public var code: String
    public var message: String
    public var byteOffset: Int?
    public var byteCount: Int?

    init(_ warning: JPEGWarning) {
        code = warning.code
        message = warning.message
        byteOffset = warning.byteOffset
        byteCount = warning.byteCount
    }

    public var description: String { "\(code): \(message)" }
}
