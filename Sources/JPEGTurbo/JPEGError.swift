import ByteStreams

/// A JPEG that could not be read or written, with the object (a storage key or a path) and,
/// when known, the byte offset where decoding stopped. When reading or writing the bytes
/// failed, `cause` is the stream's own error.
public struct JPEGError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The bytes could not be read or written (see `cause` and `systemErrno`).
        case io
        /// The bytes are not a JPEG, or libjpeg met a fatal error in them.
        case corrupt
        /// libjpeg could go on, but only by inventing pixels (truncated or damaged entropy data);
        /// `damage` says which.
        case damaged
        /// A valid JPEG darkroom does not render (12-bit, an unknown colour space, ...).
        case unsupported
        /// The caller used the API out of order; a bug in darkroom, not in the file.
        case misuse
        case outOfMemory
    }

    /// Why the data is `.damaged`: where the file was cut, or that its scan data is corrupt.
    public enum Damage: String, Sendable {
        /// The file ends inside its scan data: the rows below the cut never arrived.
        case cutInScanData = "cut_in_scan_data"
        /// The file ends between the scans of a progressive or multi-scan JPEG: whole scans
        /// (components, or the refinement of their coefficients) never arrived.
        case cutBetweenScans = "cut_between_scans"
        /// The file ends inside a marker segment, before its image data is complete.
        case cutInMarkers = "cut_in_markers"
        /// The entropy-coded data is corrupt (a bad code, a marker inside it, bytes left over):
        /// libjpeg would fill blocks with grey or smear them.
        case corruptScanData = "corrupt_scan_data"
        /// An arithmetic-coded file without its EOI marker: arithmetic coding may legally stop
        /// short inside a scan, so a cut there cannot be told from the end.
        case unverifiableEnd = "unverifiable_end"
        /// Markers that contradict each other (the progression, the ICC chunks, ...).
        case inconsistentMarkers = "inconsistent_markers"
    }

    public var code: Code
    /// Set for `.damaged`.
    public var damage: Damage?
    public var message: String
    /// The object read or written, as its stream names it.
    public var object: String
    public var byteOffset: Int?
    public var systemErrno: Int32?
    /// Why the bytes could not be read or written, for `.io` errors from a stream.
    public var cause: StreamError?

    public init(
        code: Code, damage: Damage? = nil, message: String, object: String, byteOffset: Int? = nil,
        systemErrno: Int32? = nil, cause: StreamError? = nil
    ) {
        self.code = code
        self.damage = damage
        self.message = message
        self.object = object
        self.byteOffset = byteOffset
        self.systemErrno = systemErrno
        self.cause = cause
    }

    /// Whether the bytes themselves are bad (as opposed to reading or writing them).
    public var isDamagedData: Bool { code == .damaged || code == .corrupt }

    /// Says what is wrong; what to do about it depends on what the object is, which the
    /// caller knows (an original is re-imported, a render is rendered again).
    public var description: String {
        var text = "\(object): \(message)"
        if let byteOffset { text += " (at byte \(byteOffset))" }
        switch code {
        case .damaged, .corrupt: text += "; the JPEG data is damaged"
        case .unsupported: text += "; convert it to an 8-bit RGB or greyscale JPEG first"
        case .io, .misuse, .outOfMemory: break
        }
        return text
    }
}
