/// An `.AAE` sidecar: PhotoKit's `PHAdjustmentData` serialised as an XML property list, as
/// Photos exports, iCloud downloads and osxphotos write it beside an original.
public struct AppleSidecar: Codable, Sendable, Equatable {
    /// `adjustmentFormatIdentifier`: `com.apple.photo` for Photos' own edits.
    public var formatIdentifier: String
    /// `adjustmentFormatVersion` as written ("1.4", "1.11", "1.9.1").
    public var formatVersion: String
    /// `adjustmentData`, byte for byte.
    public var data: [UInt8]
    /// `adjustmentBaseVersion`, `adjustmentEditorBundleID`, `adjustmentTimestamp` (seconds
    /// since 2001-01-01 UTC), when present.
    public var baseVersion: Int64?
    public var editorBundleID: String?
    public var timestamp: Double?

    /// The largest sidecar read; Apple's are a few KiB.
    public static let maxBytes = XMLPropertyList.maxBytes

    /// Reads a sidecar (XML, or binary as some tools write it). Bad bytes are an
    /// `AdjustmentError` naming what is wrong; nothing in the file is instantiated.
    public static func decode(_ bytes: [UInt8]) throws -> AppleSidecar {
        let value =
            bytes.starts(with: BinaryPropertyList.header)
            ? try BinaryPropertyList.decode(bytes) : try XMLPropertyList.decode(bytes)
        guard case .dictionary(let top) = value else {
            throw AdjustmentError(.malformedData, "AAE sidecar: the top value is \(value.kind), not a dictionary")
        }
        func string(_ key: String) throws -> String? {
            switch top[key] {
            case nil: return nil
            case .string(let text): return text
            case let other?: throw AdjustmentError(.malformedData, "AAE sidecar: \(key) is \(other.kind), not a string")
            }
        }
        guard let identifier = try string("adjustmentFormatIdentifier"), !identifier.isEmpty else {
            throw AdjustmentError(.malformedData, "AAE sidecar has no adjustmentFormatIdentifier")
        }
        guard let version = try string("adjustmentFormatVersion") else {
            throw AdjustmentError(.malformedData, "AAE sidecar has no adjustmentFormatVersion")
        }
        guard case .data(let data)? = top["adjustmentData"] else {
            throw AdjustmentError(.malformedData, "AAE sidecar has no adjustmentData (base64 <data>)")
        }
        var sidecar = AppleSidecar(formatIdentifier: identifier, formatVersion: version, data: data)
        if case .integer(let base)? = top["adjustmentBaseVersion"] { sidecar.baseVersion = base }
        sidecar.editorBundleID = try string("adjustmentEditorBundleID")
        if case .date(let seconds)? = top["adjustmentTimestamp"] { sidecar.timestamp = seconds }
        return sidecar
    }

    /// A sidecar as an import records it: decoded, and when it holds Photos' own edit
    /// (`com.apple.photo`), that edit's data read through, so that a version or data darkroom
    /// cannot read is refused now rather than at its first render. Any other format is left to
    /// the caller (whatever its adjustments: the render decides what it reproduces).
    public static func decodeForImport(_ bytes: [UInt8]) throws -> AppleSidecar {
        guard bytes.count <= maxBytes else {
            throw AdjustmentError(.dataTooLarge, "is over \(maxBytes) bytes, not a sidecar")
        }
        let sidecar = try decode(bytes)
        if sidecar.formatIdentifier == ApplePhotoFormat.identifier {
            guard SemanticVersion(sidecar.formatVersion) != nil else {
                throw AdjustmentError(
                    .unsupportedVersion, "adjustmentFormatVersion \"\(sidecar.formatVersion)\" is not a version")
            }
            _ = try ApplePhotoFormat.decode(sidecar.data)
        }
        return sidecar
    }

    public init(
        formatIdentifier: String, formatVersion: String, data: [UInt8], baseVersion: Int64? = nil,
        editorBundleID: String? = nil, timestamp: Double? = nil
    ) {
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.data = data
        self.baseVersion = baseVersion
        self.editorBundleID = editorBundleID
        self.timestamp = timestamp
    }
}
